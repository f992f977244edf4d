import { sql } from 'kysely';
import type { DB } from '../database.js';
import { flakeStats, flakeWindow, isQuarantined, storedRuleRate, type FlakeStats } from '../../domain/flakiness.js';

/**
 * Flake rate per test over its last `flakeWindow` finished runs (a result of PASSED or FAILED; skipped, cancelled
 * and unfinished ones said nothing about the test). Tests with no such run are absent. One query for any number
 * of tests, served by the (test_case_id, finished_at desc) index.
 */
export async function flakeStatsOf(db: DB, testCaseIds: readonly string[]): Promise<Map<string, FlakeStats>> {
  const stats = new Map<string, FlakeStats>();
  if (testCaseIds.length === 0) return stats;
  const rows = await db
    .selectFrom((eb) =>
      eb
        .selectFrom('run_test_cases')
        .select(['test_case_id', 'flaky'])
        .select(sql<number>`row_number() over (partition by test_case_id order by finished_at desc, id)`.as('n'))
        .where('test_case_id', 'in', [...testCaseIds])
        .where('result', 'in', ['PASSED', 'FAILED'])
        .where('finished_at', 'is not', null)
        .as('recent'),
    )
    .select(['test_case_id', sql<string>`count(*)`.as('runs'), sql<string>`count(*) filter (where flaky)`.as('flaky')])
    .where('n', '<=', flakeWindow)
    .groupBy('test_case_id')
    .execute();
  for (const r of rows) {
    const runs = Number(r.runs);
    const flaky = Number(r.flaky);
    // flakeStats over counts: the rows are already the window.
    stats.set(r.test_case_id!, flakeStats(Array.from({ length: runs }, (_, i) => ({ flaky: i < flaky }))));
  }
  return stats;
}

export const noRuns: FlakeStats = { recentRuns: 0, flakeRate: 0 };

/** Which of the tests are quarantined now: flagged by hand, or caught by the project's rule (when it has one). */
export async function quarantinedTestIds(
  db: DB,
  projectId: string,
  tests: readonly { id: string; quarantined: boolean }[],
): Promise<Set<string>> {
  const project = await db
    .selectFrom('projects')
    .select(['quarantine_flake_rate', 'quarantine_min_runs'])
    .where('id', '=', projectId)
    .executeTakeFirst();
  const rule =
    project?.quarantine_flake_rate != null
      ? { flakeRate: storedRuleRate(project.quarantine_flake_rate), minRuns: project.quarantine_min_runs }
      : null;
  const stats = rule
    ? await flakeStatsOf(
        db,
        tests.map((t) => t.id),
      )
    : new Map<string, FlakeStats>();
  return new Set(tests.filter((t) => isQuarantined(t.quarantined, rule, stats.get(t.id) ?? noRuns)).map((t) => t.id));
}
