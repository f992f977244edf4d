// Writing test cases, and what a write validates against: the stored record, the config ids it names, the
// project's dependency graph (read under a lock, so two writes cannot close a cycle). Reading test cases as the API
// shows them is test-case-views.ts.
import { sql } from 'kysely';
import type { DB } from '../database.js';
import type { GenerationStatus } from '../schema.js';
import { updateProjectRow } from './project-rows.js';

/** What a write validates against: the stored row, without joins. */
export interface TestCaseRecord {
  id: string;
  name: string;
  applicationId: string;
  generationStatus: GenerationStatus;
}

export interface NewTestCase {
  id: string;
  projectId: string;
  applicationId: string;
  name: string;
  goal: string;
  expectedResult: string | null;
  labels: string[];
  configIds: string[];
  scenarioId: string | null;
  resumeFromTestCaseId: string | null;
  waitForTestCaseIds: string[];
}

/** A change to a test case; an absent field is left as it is. */
export interface TestCasePatch {
  name?: string;
  goal?: string;
  expectedResult?: string | null;
  isEnabled?: boolean;
  labels?: string[];
  resumeFromTestCaseId?: string | null;
  waitForTestCaseIds?: string[];
  quarantined?: boolean;
}

export async function getTestCaseRecord(db: DB, projectId: string, id: string): Promise<TestCaseRecord | undefined> {
  const row = await db
    .selectFrom('test_cases')
    .select(['id', 'name', 'application_id', 'generation_status'])
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
  return (
    row && { id: row.id, name: row.name, applicationId: row.application_id, generationStatus: row.generation_status }
  );
}

/** The project's test cases among `ids`; ids of other projects are simply absent. */
export async function findTestCaseRecords(db: DB, projectId: string, ids: string[]): Promise<TestCaseRecord[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('test_cases')
    .select(['id', 'name', 'application_id', 'generation_status'])
    .where('project_id', '=', projectId)
    .where('id', 'in', ids)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    applicationId: row.application_id,
    generationStatus: row.generation_status,
  }));
}

/** The config ids of the project's configs among `shortIds`, by short id; other projects' are absent. */
export async function findConfigIds(db: DB, projectId: string, shortIds: string[]): Promise<Map<string, string>> {
  if (shortIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('configs')
    .select(['id', 'short_id'])
    .where('project_id', '=', projectId)
    .where('short_id', 'in', shortIds)
    .execute();
  return new Map(rows.map((row) => [row.short_id, row.id]));
}

/**
 * Serializes the writes to a project's test cases until the transaction ends, so two concurrent changes
 * cannot together close a dependency cycle or add a dependency on a test case being deleted.
 * NO KEY UPDATE leaves inserts elsewhere that reference the project (foreign-key checks) unblocked.
 */
export async function lockProjectTestCases(trx: DB, projectId: string): Promise<void> {
  await trx.selectFrom('projects').select('id').where('id', '=', projectId).forNoKeyUpdate().execute();
}

/** Every test case of the project with its dependencies of both kinds, names included for messages. */
export async function projectDependencyGraph(
  db: DB,
  projectId: string,
): Promise<Map<string, { name: string; dependsOn: string[] }>> {
  const rows = await db
    .selectFrom('test_cases')
    .select(['id', 'name', 'resume_from_test_case_id', 'wait_for_test_case_ids'])
    .where('project_id', '=', projectId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return new Map(
    rows.map((row) => [
      row.id,
      {
        name: row.name,
        dependsOn: [
          ...(row.resume_from_test_case_id ? [row.resume_from_test_case_id] : []),
          ...row.wait_for_test_case_ids,
        ],
      },
    ]),
  );
}

/** Test cases of the project that resume from or wait for `id`. */
export async function findDependents(db: DB, projectId: string, id: string): Promise<{ id: string; name: string }[]> {
  return db
    .selectFrom('test_cases')
    .select(['id', 'name'])
    .where('project_id', '=', projectId)
    .where('id', '<>', id)
    .where((eb) =>
      eb.or([eb('resume_from_test_case_id', '=', id), sql<boolean>`${id}::uuid = any(wait_for_test_case_ids)`]),
    )
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Inserts a test case as the API creates it: disabled, generating, without steps. */
export async function insertTestCase(db: DB, input: NewTestCase): Promise<void> {
  await db
    .insertInto('test_cases')
    .values({
      id: input.id,
      project_id: input.projectId,
      application_id: input.applicationId,
      name: input.name,
      goal: input.goal,
      expected_result: input.expectedResult,
      is_enabled: false,
      generation_status: 'GENERATING',
      labels: input.labels,
      config_ids: input.configIds,
      scenario_id: input.scenarioId,
      resume_from_test_case_id: input.resumeFromTestCaseId,
      wait_for_test_case_ids: input.waitForTestCaseIds,
    })
    .execute();
}

export async function updateTestCase(db: DB, id: string, patch: TestCasePatch): Promise<void> {
  const values = {
    name: patch.name,
    goal: patch.goal,
    expected_result: patch.expectedResult,
    is_enabled: patch.isEnabled,
    labels: patch.labels,
    resume_from_test_case_id: patch.resumeFromTestCaseId,
    wait_for_test_case_ids: patch.waitForTestCaseIds,
    quarantined: patch.quarantined,
  };
  await updateProjectRow(db, 'test_cases', id, values, { touch: true });
}

export async function markGenerationFailed(db: DB, id: string, failureReason: string): Promise<void> {
  await db
    .updateTable('test_cases')
    .set({ generation_status: 'FAILED', failure_reason: failureReason, updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .execute();
}

/** Deletes the test case; test plans that listed it no longer do (their rows cascade). */
export async function deleteTestCase(db: DB, id: string): Promise<void> {
  await db.deleteFrom('test_cases').where('id', '=', id).execute();
}
