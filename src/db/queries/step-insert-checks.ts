import type { DB } from '../database.js';
import type { ApplicationKind, GenerationStatus } from '../schema.js';

/** What decides, before anything starts, whether a step can be inserted into a test case. */
export interface InsertionSubject {
  name: string;
  generationStatus: GenerationStatus;
  stepCount: number;
  resumeFromId: string | null;
  application: { name: string; shortId: string; kind: ApplicationKind };
  /** The application's default environment's URL, which the insertion replays against (as a burn-in does). */
  environmentUrl: string | null;
}

const stepCount = (steps: unknown): number => (Array.isArray(steps) ? steps.length : 0);

export async function insertionSubject(
  db: DB,
  projectId: string,
  testCaseId: string,
): Promise<InsertionSubject | undefined> {
  const row = await db
    .selectFrom('test_cases as t')
    .innerJoin('applications as a', 'a.id', 't.application_id')
    .leftJoin('environments as e', 'e.id', 'a.default_environment_id')
    .select([
      't.name',
      't.generation_status',
      't.steps',
      't.resume_from_test_case_id',
      'a.name as application_name',
      'a.short_id as application_short_id',
      'a.kind',
      'e.url',
    ])
    .where('t.project_id', '=', projectId)
    .where('t.id', '=', testCaseId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    name: row.name,
    generationStatus: row.generation_status,
    stepCount: stepCount(row.steps),
    resumeFromId: row.resume_from_test_case_id,
    application: { name: row.application_name, shortId: row.application_short_id, kind: row.kind },
    environmentUrl: row.url,
  };
}

/** One resume-from dependency as the insertion replays it first: undefined when it no longer exists. */
export async function resumeDependency(
  db: DB,
  projectId: string,
  testCaseId: string,
): Promise<{ id: string; name: string; stepCount: number; resumeFromId: string | null } | undefined> {
  const row = await db
    .selectFrom('test_cases')
    .select(['id', 'name', 'steps', 'resume_from_test_case_id'])
    .where('project_id', '=', projectId)
    .where('id', '=', testCaseId)
    .executeTakeFirst();
  return (
    row && { id: row.id, name: row.name, stepCount: stepCount(row.steps), resumeFromId: row.resume_from_test_case_id }
  );
}
