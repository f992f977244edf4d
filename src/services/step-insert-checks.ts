// Why a step cannot be inserted into a test case, known before anything starts: the insertion is refused at once
// (the API's 409 with the reason, the dashboard's form with it, and the step editor offers no "Insert a step here"
// at all) instead of being accepted and failing in the worker as a burn-in would. Each reason here is one the
// insertStep workflow would otherwise meet only after it started (activities/insert-step.ts): a mobile
// application (the agent records in a browser), no environment URL to replay against, no recorded steps, a
// resume-from dependency that cannot replay, a burn-in or another insertion running. The position is checked by
// the request itself (it depends on what is asked, not on the test case).
import type { DB } from '../db/database.js';
import { insertionSubject, resumeDependency, type InsertionSubject } from '../db/queries/step-insert-checks.js';
import { runningStepInsertion } from '../db/queries/step-insertions.js';
import { ConflictError, NotFoundError } from '../domain/errors.js';
import type { ServiceContext } from './context.js';

export const runningRefusal = 'a step is being inserted into this test case already: wait for it to finish';

/** How far a resume-from chain is followed; a longer one is refused as the replay would refuse a cycle. */
const maxChain = 50;

/** The reason no step can be inserted into the project's test case now, or null when one can. */
export async function insertionRefusal(
  { db }: ServiceContext,
  projectId: string,
  testCaseId: string,
): Promise<ConflictError | null> {
  const subject = await insertionSubject(db, projectId, testCaseId);
  if (!subject) throw new NotFoundError('Test case');
  const reason = subjectRefusal(subject) ?? (await dependencyRefusal(db, projectId, testCaseId, subject.resumeFromId));
  if (reason) return new ConflictError(reason);
  if (await runningStepInsertion(db, testCaseId)) return new ConflictError(runningRefusal);
  return null;
}

function subjectRefusal(s: InsertionSubject): string | null {
  if (s.application.kind !== 'web') {
    return `${s.application.name} is an ${s.application.kind} application: a step is recorded by the agent in a browser, so steps are inserted into web tests only; edit this test's steps instead`;
  }
  if (s.generationStatus === 'GENERATING') return 'the test case is still burning in: wait for its steps, then insert';
  if (s.stepCount === 0) return 'the test case has no recorded steps to insert into';
  if (!s.environmentUrl) {
    return `application ${s.application.name} has no environment with a URL to replay the steps against: create one (POST /v1/applications/${s.application.shortId}/environments, or its page in the dashboard)`;
  }
  return null;
}

/** The resume-from chain is replayed first: a dependency gone, without steps or in a cycle makes that fail. */
async function dependencyRefusal(
  db: DB,
  projectId: string,
  testCaseId: string,
  firstId: string | null,
): Promise<string | null> {
  const seen = new Set([testCaseId]);
  for (let id = firstId; id;) {
    if (seen.has(id) || seen.size > maxChain) return 'its resume-from dependencies form a cycle';
    seen.add(id);
    const dep = await resumeDependency(db, projectId, id);
    if (!dep) return 'its resume-from dependency no longer exists';
    if (dep.stepCount === 0) return `its resume-from dependency "${dep.name}" has no recorded steps to replay first`;
    id = dep.resumeFromId;
  }
  return null;
}
