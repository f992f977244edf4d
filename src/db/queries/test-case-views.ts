// Test cases as the API shows them: the one place a row becomes its summary (lists) or its full view (with its
// steps, recording check and flake rate), and the paged, filtered list. Kept apart from test-cases.ts, which holds
// the writes and what they validate against (records, dependencies).
import { sql } from 'kysely';
import type { DB } from '../database.js';
import type { GenerationStatus } from '../schema.js';
import type { RecordedSteps, Step } from '../../domain/steps.js';
import { flakeStatsOf, noRuns } from './flakiness.js';
import type { FlakeStats } from '../../domain/flakiness.js';
import type { RecordingCheck } from '../../domain/recording-check.js';
import type { SelectedRow } from './rows.js';

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

type ViewRow = SelectedRow<typeof selectViews>;

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
