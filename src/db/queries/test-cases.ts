import { sql } from 'kysely';
import type { DB } from '../database.js';
import type { GenerationStatus } from '../schema.js';
import type { RecordedSteps, Step } from '../../domain/steps.js';

export interface TestCaseSummary {
  id: string;
  name: string;
  isEnabled: boolean;
  labels: string[];
  classification: string;
  applicationShortId: string;
  applicationName: string;
  goal: string | null;
  createdAt: string;
  generationStatus: GenerationStatus;
}

export interface TestCaseView extends TestCaseSummary {
  expectedResult: string | null;
  failureReason: string | null;
  configShortIds: string[];
  scenarioShortId: string | null;
  resumeFromDependencyProjectTestCaseId: string | null;
  waitForDependenciesProjectTestCaseIds: string[];
  steps: RecordedSteps | null;
  updatedAt: string;
}

export interface TestCaseFilter {
  applicationId?: string;
  /** A test case matches when it carries every one of them. */
  labels?: string[];
  isEnabled?: boolean;
}

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
}

function selectViews(db: DB, projectId: string) {
  return db
    .selectFrom('test_cases as tc')
    .innerJoin('applications as a', 'a.id', 'tc.application_id')
    .leftJoin('scenarios as s', 's.id', 'tc.scenario_id')
    .selectAll('tc')
    .select([
      'a.short_id as application_short_id',
      'a.name as application_name',
      's.short_id as scenario_short_id',
      // Configs are kept as an id array without a foreign key: resolve them in the order they were given.
      sql<string[]>`array(select c.short_id from configs c where c.id = any(tc.config_ids) order by array_position(tc.config_ids, c.id))`.as(
        'config_short_ids',
      ),
    ])
    .where('tc.project_id', '=', projectId);
}

type ViewRow = Awaited<ReturnType<ReturnType<typeof selectViews>['executeTakeFirstOrThrow']>>;

/** The one place a test case row becomes its API shape. */
export function toTestCaseView(row: ViewRow): TestCaseView {
  return {
    id: row.id,
    name: row.name,
    isEnabled: row.is_enabled,
    labels: row.labels,
    classification: row.classification,
    applicationShortId: row.application_short_id,
    applicationName: row.application_name,
    goal: row.goal,
    createdAt: row.created_at.toISOString(),
    generationStatus: row.generation_status,
    expectedResult: row.expected_result,
    failureReason: row.failure_reason,
    configShortIds: row.config_short_ids,
    scenarioShortId: row.scenario_short_id,
    resumeFromDependencyProjectTestCaseId: row.resume_from_test_case_id,
    waitForDependenciesProjectTestCaseIds: row.wait_for_test_case_ids,
    steps: row.steps === null ? null : { version: row.steps_version, steps: row.steps as Step[] },
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The list fields of a view (section 2 of the spec, plus the generation status). */
export function toTestCaseSummary(view: TestCaseView): TestCaseSummary {
  const { id, name, isEnabled, labels, classification, applicationShortId, applicationName, goal, createdAt, generationStatus } = view;
  return { id, name, isEnabled, labels, classification, applicationShortId, applicationName, goal, createdAt, generationStatus };
}

export async function getTestCase(db: DB, projectId: string, id: string): Promise<TestCaseView | undefined> {
  const row = await selectViews(db, projectId).where('tc.id', '=', id).executeTakeFirst();
  return row && toTestCaseView(row);
}

/** One page of the project's matching test cases, newest first, with the number of all matches. */
export async function listTestCases(
  db: DB,
  projectId: string,
  filter: TestCaseFilter,
  page: { limit: number; offset: number },
): Promise<{ testCases: TestCaseSummary[]; total: number }> {
  let query = selectViews(db, projectId);
  if (filter.applicationId !== undefined) query = query.where('tc.application_id', '=', filter.applicationId);
  if (filter.isEnabled !== undefined) query = query.where('tc.is_enabled', '=', filter.isEnabled);
  if (filter.labels !== undefined && filter.labels.length > 0) query = query.where(sql<boolean>`tc.labels @> ${filter.labels}::text[]`);

  const [rows, count] = await Promise.all([
    query.orderBy('tc.created_at', 'desc').orderBy('tc.id').limit(page.limit).offset(page.offset).execute(),
    query.clearSelect().select(sql<number>`count(*)::int`.as('total')).executeTakeFirstOrThrow(),
  ]);
  return { testCases: rows.map((row) => toTestCaseSummary(toTestCaseView(row))), total: count.total };
}

export async function getTestCaseRecord(db: DB, projectId: string, id: string): Promise<TestCaseRecord | undefined> {
  const row = await db
    .selectFrom('test_cases')
    .select(['id', 'name', 'application_id', 'generation_status'])
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && { id: row.id, name: row.name, applicationId: row.application_id, generationStatus: row.generation_status };
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
  return rows.map((row) => ({ id: row.id, name: row.name, applicationId: row.application_id, generationStatus: row.generation_status }));
}

/** The config ids of the project's configs among `shortIds`, by short id; other projects' are absent. */
export async function findConfigIds(db: DB, projectId: string, shortIds: string[]): Promise<Map<string, string>> {
  if (shortIds.length === 0) return new Map();
  const rows = await db.selectFrom('configs').select(['id', 'short_id']).where('project_id', '=', projectId).where('short_id', 'in', shortIds).execute();
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
export async function projectDependencyGraph(db: DB, projectId: string): Promise<Map<string, { name: string; dependsOn: string[] }>> {
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
      { name: row.name, dependsOn: [...(row.resume_from_test_case_id ? [row.resume_from_test_case_id] : []), ...row.wait_for_test_case_ids] },
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
    .where((eb) => eb.or([eb('resume_from_test_case_id', '=', id), sql<boolean>`${id}::uuid = any(wait_for_test_case_ids)`]))
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
    ...(patch.name !== undefined && { name: patch.name }),
    ...(patch.goal !== undefined && { goal: patch.goal }),
    ...(patch.expectedResult !== undefined && { expected_result: patch.expectedResult }),
    ...(patch.isEnabled !== undefined && { is_enabled: patch.isEnabled }),
    ...(patch.labels !== undefined && { labels: patch.labels }),
    ...(patch.resumeFromTestCaseId !== undefined && { resume_from_test_case_id: patch.resumeFromTestCaseId }),
    ...(patch.waitForTestCaseIds !== undefined && { wait_for_test_case_ids: patch.waitForTestCaseIds }),
  };
  if (Object.keys(values).length === 0) return;
  await db
    .updateTable('test_cases')
    .set({ ...values, updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .execute();
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
