// "Insert a step here": a person describes a step in words at a position of a test case's steps; the insertStep
// workflow replays the steps before it and lets the agent record the described step in that page. This service
// owns the rules: what may be asked (a position within the steps, a description, a test case that is not burning
// in, one insertion at a time), and how the recorded steps become a new version (the editor's own save, so
// versioning, proposals and the audit log are the same). A request is a row to poll: RUNNING → COMPLETED | FAILED.
import { getTestCase } from '../db/queries/test-case-views.js';
import {
  finishStepInsertion,
  findStepInsertion,
  getStepInsertion,
  insertStepInsertion,
  type StepInsertionRow,
} from '../db/queries/step-insertions.js';
import { ConflictError, InvalidError, NotFoundError, UnavailableError } from '../domain/errors.js';
import type { AuditActor } from '../domain/audit.js';
import { StepEditError } from '../domain/step-edits.js';
import type { Step } from '../domain/steps.js';
import { newId } from '../ids.js';
import { cancelInsertStep, startInsertStep } from '../temporal/lifecycle.js';
import { assertLlmBudget } from './llm-usage.js';
import { saveEditedSteps } from './step-edits.js';
import { insertionRefusal, runningRefusal } from './step-insert-checks.js';
import type { ServiceContext } from './context.js';

export const maxInsertDescription = 2_000;

export interface StepInsertionView {
  id: string;
  testCaseId: string;
  status: 'RUNNING' | 'COMPLETED' | 'FAILED';
  /** 0-based: the recorded steps went (or go) before the step that was at this index. */
  at: number;
  description: string;
  basedOnVersion: number;
  /** COMPLETED: the new steps version, and how many steps the agent recorded for the description. */
  version: number | null;
  insertedSteps: number | null;
  failureReason: string | null;
  createdAt: string;
  finishedAt: string | null;
}

export function stepInsertionView(row: StepInsertionRow): StepInsertionView {
  return {
    id: row.id,
    testCaseId: row.test_case_id,
    status: row.status,
    at: row.position,
    description: row.description,
    basedOnVersion: row.based_on_version,
    version: row.version,
    insertedSteps: row.inserted_steps,
    failureReason: row.failure_reason,
    createdAt: row.created_at.toISOString(),
    finishedAt: row.finished_at?.toISOString() ?? null,
  };
}

/**
 * Accepts an insertion and starts its workflow (after the row is written; a start that fails marks it FAILED, so
 * an accepted request is never silently lost). `at` counts from 0: 0 inserts before the first step, the number of
 * steps after the last.
 */
export async function requestStepInsertion(
  deps: ServiceContext<'temporal' | 'logger'>,
  input: { projectId: string; testCaseId: string; at: number; description: string; actor: AuditActor },
): Promise<StepInsertionView> {
  const description = input.description.trim();
  if (!description) throw new InvalidError('description: say in words what the step should do');
  if (description.length > maxInsertDescription)
    throw new InvalidError(`description: at most ${maxInsertDescription} characters`);
  const testCase = await getTestCase(deps.db, input.projectId, input.testCaseId);
  if (!testCase) throw new NotFoundError('Test case');
  // Every reason known before starting is refused here, never accepted to fail in the worker (step-insert-checks.ts).
  const refusal = await insertionRefusal(deps, input.projectId, input.testCaseId);
  if (refusal || !testCase.steps)
    throw refusal ?? new ConflictError('the test case has no recorded steps to insert into');
  const count = testCase.steps.steps.length;
  if (!Number.isInteger(input.at) || input.at < 0 || input.at > count) {
    throw new InvalidError(
      `at: a position from 0 (before the first step) to ${count} (after the last), not ${input.at}`,
    );
  }
  // Recording is LLM work: refused (429) before anything is written once the project's daily budget is spent.
  await assertLlmBudget(deps, input.projectId);

  const id = newId();
  try {
    await insertStepInsertion(deps.db, {
      id,
      projectId: input.projectId,
      testCaseId: input.testCaseId,
      position: input.at,
      description,
      basedOnVersion: testCase.steps.version,
      actor: input.actor,
    });
  } catch (err) {
    // Another request won the race past the check above: one RUNNING insertion per test case (migration 0101).
    if ((err as { code?: unknown } | null)?.code === '23505') throw new ConflictError(runningRefusal);
    throw err;
  }
  try {
    await startInsertStep(
      deps.temporal,
      { projectId: input.projectId, testCaseId: input.testCaseId, insertionId: id },
      `Insert a step into ${testCase.name}`,
    );
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    deps.logger.error('could not start a step insertion', { testCaseId: input.testCaseId, insertionId: id, err });
    await finishStepInsertion(deps.db, id, { status: 'FAILED', failureReason: `could not start: ${reason}` });
    throw new UnavailableError(`the insertion could not start (${reason}); it is marked FAILED`);
  }
  return stepInsertionView((await getStepInsertion(deps.db, id))!);
}

/** The insertion of the project's test case, for polling. */
export async function getStepInsertionView(
  { db }: ServiceContext,
  projectId: string,
  testCaseId: string,
  id: string,
): Promise<StepInsertionView> {
  const row = await findStepInsertion(db, projectId, testCaseId, id);
  if (!row) throw new NotFoundError('Step insertion');
  return stepInsertionView(row);
}

export const cancelledInsertionReason = 'the insertion was cancelled: nothing was saved';

/**
 * Stops a RUNNING insertion: its workflow is cancelled (the browser closes, the row becomes FAILED with
 * `cancelledInsertionReason`). One whose workflow no longer runs is marked FAILED here, so it never stays RUNNING.
 */
export async function cancelStepInsertion(
  deps: ServiceContext<'temporal'>,
  input: { projectId: string; testCaseId: string; insertionId: string },
): Promise<{ status: 'CANCELLING' | 'FAILED' }> {
  const row = await findStepInsertion(deps.db, input.projectId, input.testCaseId, input.insertionId);
  if (!row) throw new NotFoundError('Step insertion');
  if (row.status !== 'RUNNING') throw new ConflictError(`the insertion already ended (${row.status})`);
  if (await cancelInsertStep(deps.temporal, row.id)) return { status: 'CANCELLING' };
  await finishStepInsertion(deps.db, row.id, { status: 'FAILED', failureReason: cancelledInsertionReason });
  return { status: 'FAILED' };
}

export type InsertionOutcome =
  { status: 'COMPLETED'; version: number; insertedSteps: number } | { status: 'FAILED'; failureReason: string };

const outcomeOf = (row: StepInsertionRow): InsertionOutcome =>
  row.status === 'COMPLETED'
    ? { status: 'COMPLETED', version: row.version!, insertedSteps: row.inserted_steps! }
    : { status: 'FAILED', failureReason: row.failure_reason ?? 'unknown failure' };

/**
 * Splices the recorded steps in at the insertion's position and saves them as the next version, through the
 * editor's save (the same checks; a version someone saved meanwhile is a conflict, never overwritten). The row is
 * marked COMPLETED in the same transaction. Answers the outcome; an insertion that ended already answers how it
 * ended (a retried activity does not save twice).
 */
export async function saveStepInsertion(
  { db }: ServiceContext,
  input: { insertionId: string; steps: Step[] },
): Promise<InsertionOutcome> {
  const row = await getStepInsertion(db, input.insertionId);
  if (!row) throw new NotFoundError('Step insertion');
  if (row.status !== 'RUNNING') return outcomeOf(row);
  const testCase = await getTestCase(db, row.project_id, row.test_case_id);
  if (!testCase?.steps)
    return failStepInsertion(
      { db },
      { insertionId: row.id, failureReason: 'the test case or its steps no longer exist' },
    );
  if (testCase.steps.version !== row.based_on_version)
    return failStepInsertion({ db }, { insertionId: row.id, failureReason: changedSince(row, testCase.steps.version) });
  const current = testCase.steps.steps;
  const steps = [...current.slice(0, row.position), ...input.steps, ...current.slice(row.position)];
  try {
    const { version } = await saveEditedSteps(
      { db },
      {
        projectId: row.project_id,
        testCaseId: row.test_case_id,
        basedOnVersion: row.based_on_version,
        steps,
        actor: row.actor as AuditActor,
        auditDetails: { inserted: { at: row.position, steps: input.steps.length, description: row.description } },
        onSaved: async (trx, saved) => {
          // Ended meanwhile (cancelled): the version is rolled back with it, and the insertion keeps how it ended.
          if (
            !(await finishStepInsertion(trx, row.id, {
              status: 'COMPLETED',
              version: saved,
              insertedSteps: input.steps.length,
            }))
          )
            throw new ConflictError('the insertion ended while it was being saved');
        },
      },
    );
    return { status: 'COMPLETED', version, insertedSteps: input.steps.length };
  } catch (err) {
    if (err instanceof StepEditError)
      return failStepInsertion(
        { db },
        {
          insertionId: row.id,
          failureReason: `the recorded step cannot be saved: ${err.message}`,
        },
      );
    // A conflict: another version was saved meanwhile, or the insertion ended (then it keeps its own outcome).
    if (err instanceof ConflictError)
      return failStepInsertion({ db }, { insertionId: row.id, failureReason: changedSince(row) });
    throw err;
  }
}

const changedSince = (row: StepInsertionRow, now?: number) =>
  `the steps changed while the step was being recorded (it was asked of version ${row.based_on_version}${now ? `, now ${now}` : ''}): nothing was saved; insert again`;

/** Ends the insertion as FAILED with why (the person sees it); one that ended already keeps its outcome. */
export async function failStepInsertion(
  { db }: ServiceContext,
  input: { insertionId: string; failureReason: string },
): Promise<InsertionOutcome> {
  await finishStepInsertion(db, input.insertionId, { status: 'FAILED', failureReason: input.failureReason });
  const row = await getStepInsertion(db, input.insertionId);
  return row ? outcomeOf(row) : { status: 'FAILED', failureReason: input.failureReason };
}
