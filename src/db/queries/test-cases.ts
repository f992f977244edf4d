import { sql } from 'kysely';
import type { DB } from '../database.js';
import type { GenerationStatus } from '../schema.js';
import type { RecordedSteps, Step } from '../../domain/steps.js';
import { flakeStatsOf, noRuns } from './flakiness.js';
import type { FlakeStats } from '../../domain/flakiness.js';
import type { RecordingCheck } from '../../domain/recording-check.js';

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
  /** What the burn-in agent said it could not verify (empty: nothing). */
  notCovered: string[];
  /** The verifying replay of its last burn-in: its steps replayed in a fresh browser before they were saved. */
  recordingCheck: RecordingCheck | null;
  /** Flagged by hand: runs and reports, but fails neither a run nor a review. */
  quarantined: boolean;
  /** Flaky runs over its last finished runs (src/domain/flakiness.ts); `recentRuns` says how many were counted. */
  flakeRate: number;
  recentRuns: number;
  updatedAt: string;
}

export interface TestCaseFilter {
  applicationShortId?: string;
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
  quarantined?: boolean;
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
      sql<
        string[]
      >`array(select c.short_id from configs c where c.id = any(tc.config_ids) order by array_position(tc.config_ids, c.id))`.as(
        'config_short_ids',
      ),
    ])
    .where('tc.project_id', '=', projectId);
}

type ViewRow = Awaited<ReturnType<ReturnType<typeof selectViews>['executeTakeFirstOrThrow']>>;
type SummaryRow = Pick<
  ViewRow,
  | 'id'
  | 'name'
  | 'is_enabled'
  | 'labels'
  | 'classification'
  | 'application_short_id'
  | 'application_name'
  | 'goal'
  | 'created_at'
  | 'generation_status'
>;

/** The list shape of a test case; the full view adds to it. */
function toTestCaseSummary(row: SummaryRow): TestCaseSummary {
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
  };
}

/** The one place a test case row becomes its API shape. */
export function toTestCaseView(row: ViewRow, flakes: FlakeStats): TestCaseView {
  return {
    ...toTestCaseSummary(row),
    expectedResult: row.expected_result,
    failureReason: row.failure_reason,
    configShortIds: row.config_short_ids,
    scenarioShortId: row.scenario_short_id,
    resumeFromDependencyProjectTestCaseId: row.resume_from_test_case_id,
    waitForDependenciesProjectTestCaseIds: row.wait_for_test_case_ids,
    steps: row.steps === null ? null : { version: row.steps_version, steps: row.steps as Step[] },
    notCovered: row.not_covered ?? [],
    recordingCheck: row.recording_check ?? null,
    quarantined: row.quarantined,
    flakeRate: flakes.flakeRate,
    recentRuns: flakes.recentRuns,
    updatedAt: row.updated_at.toISOString(),
  };
}

export async function getTestCase(db: DB, projectId: string, id: string): Promise<TestCaseView | undefined> {
  const row = await selectViews(db, projectId).where('tc.id', '=', id).executeTakeFirst();
  return row && toTestCaseView(row, (await flakeStatsOf(db, [row.id])).get(row.id) ?? noRuns);
}

/**
 * One page of the project's matching test cases, newest first, with the number of all matches; undefined when
 * `applicationShortId` names no application of the project. One round trip: the total comes from a window
 * count over the same filter. Only an empty page needs a second look, to tell an unknown application from
 * no matches and to count the matches an offset past the end skipped.
 */
export async function listTestCases(
  db: DB,
  projectId: string,
  filter: TestCaseFilter,
  page: { limit: number; offset: number },
): Promise<{ testCases: TestCaseSummary[]; total: number } | undefined> {
  let query = db
    .selectFrom('test_cases as tc')
    .innerJoin('applications as a', 'a.id', 'tc.application_id')
    .where('tc.project_id', '=', projectId);
  if (filter.applicationShortId !== undefined) query = query.where('a.short_id', '=', filter.applicationShortId);
  if (filter.isEnabled !== undefined) query = query.where('tc.is_enabled', '=', filter.isEnabled);
  if (filter.labels !== undefined && filter.labels.length > 0)
    query = query.where(sql<boolean>`tc.labels @> ${filter.labels}::text[]`);

  const rows = await query
    .select([
      'tc.id',
      'tc.name',
      'tc.is_enabled',
      'tc.labels',
      'tc.classification',
      'a.short_id as application_short_id',
      'a.name as application_name',
      'tc.goal',
      'tc.created_at',
      'tc.generation_status',
      sql<string>`count(*) over ()`.as('total'),
    ])
    .orderBy('tc.created_at', 'desc')
    .orderBy('tc.id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  const testCases = rows.map(toTestCaseSummary);
  if (rows.length > 0) return { testCases, total: Number(rows[0]!.total) };

  const counted = await db
    .selectNoFrom((eb) => [
      filter.applicationShortId === undefined
        ? sql<boolean>`true`.as('application_found')
        : eb
            .exists(
              eb
                .selectFrom('applications')
                .select('id')
                .where('project_id', '=', projectId)
                .where('short_id', '=', filter.applicationShortId),
            )
            .as('application_found'),
      (page.offset > 0 ? query.select(sql<string>`count(*)`.as('n')) : eb.val('0')).as('total'),
    ])
    .executeTakeFirstOrThrow();
  if (!counted.application_found) return undefined;
  return { testCases, total: Number(counted.total) };
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
    ...(patch.name !== undefined && { name: patch.name }),
    ...(patch.goal !== undefined && { goal: patch.goal }),
    ...(patch.expectedResult !== undefined && { expected_result: patch.expectedResult }),
    ...(patch.isEnabled !== undefined && { is_enabled: patch.isEnabled }),
    ...(patch.labels !== undefined && { labels: patch.labels }),
    ...(patch.resumeFromTestCaseId !== undefined && { resume_from_test_case_id: patch.resumeFromTestCaseId }),
    ...(patch.waitForTestCaseIds !== undefined && { wait_for_test_case_ids: patch.waitForTestCaseIds }),
    ...(patch.quarantined !== undefined && { quarantined: patch.quarantined }),
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
