// What the trends (issue 36) read: a plan's or a test's last runs, newest first, and a project's open issues per
// kind. Each reads at most `limit` rows through an index (runs_test_plan_created, run_test_cases_test_case_finished,
// run_test_cases_flaky), never every run of a project: a project with 10,000 runs draws its trends as fast as one
// with 20 (bench/trends.ts).
import { sql } from 'kysely';
import type { DB } from '../database.js';

export interface PlanRunRow {
  short_id: string;
  status: string;
  result: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  had_flaky: boolean;
}

/**
 * A plan's last `limit` runs, newest first, each with whether a test of it passed only on a retry. The plan's id is
 * looked up first and the runs limited before the flaky check, so the planner walks runs_test_plan_created for
 * `limit` rows and asks run_test_cases_flaky once per run: joined on the plan's short id instead, it sorted every
 * run of the project (bench/trends.ts).
 */
export async function planRunsForTrend(
  db: DB,
  projectId: string,
  planShortId: string,
  limit: number,
): Promise<PlanRunRow[]> {
  return db
    .selectFrom((eb) =>
      eb
        .selectFrom('runs')
        .select(['id', 'short_id', 'status', 'result', 'created_at', 'started_at', 'finished_at'])
        // The plan's project is checked by the lookup; a second filter here would tempt the planner onto
        // runs_project_created, which holds every run of the project.
        .where('test_plan_id', '=', (sub) =>
          sub
            .selectFrom('test_plans')
            .select('id')
            .where('project_id', '=', projectId)
            .where('short_id', '=', planShortId),
        )
        .orderBy('created_at', 'desc')
        .limit(limit)
        .as('r'),
    )
    .select(['r.short_id', 'r.status', 'r.result', 'r.created_at', 'r.started_at', 'r.finished_at'])
    .select(sql<boolean>`exists (select 1 from run_test_cases t where t.run_id = r.id and t.flaky)`.as('had_flaky'))
    .orderBy('r.created_at', 'desc')
    .execute();
}

export interface PlanTrendCounts {
  plan_short_id: string;
  finished: number;
  passed: number;
}

/** Per plan of the project, how many of its last `limit` runs finished (passed or failed) and how many passed. */
export async function planPassCounts(db: DB, projectId: string, limit: number): Promise<PlanTrendCounts[]> {
  const rows = await db
    .selectFrom('test_plans as p')
    .innerJoinLateral(
      (eb) =>
        eb
          .selectFrom('runs')
          .select(['status', 'result'])
          .whereRef('runs.test_plan_id', '=', 'p.id')
          .orderBy('created_at', 'desc')
          .limit(limit)
          .as('r'),
      (join) => join.onTrue(),
    )
    .select('p.short_id as plan_short_id')
    .select([
      sql<string>`count(*) filter (where r.status = 'ERROR' or r.result in ('PASSED', 'FAILED'))`.as('finished'),
      sql<string>`count(*) filter (where r.status <> 'ERROR' and r.result = 'PASSED')`.as('passed'),
    ])
    .where('p.project_id', '=', projectId)
    .groupBy('p.short_id')
    .execute();
  return rows.map((r) => ({ plan_short_id: r.plan_short_id, finished: Number(r.finished), passed: Number(r.passed) }));
}

export interface TestRunRow {
  run_short_id: string;
  status: string;
  result: string | null;
  flaky: boolean;
  duration_ms: number | null;
  started_at: Date | null;
  finished_at: Date | null;
}

/** A test's last `limit` finished executions in runs of the project, newest first. */
export async function testRunsForTrend(
  db: DB,
  projectId: string,
  testCaseId: string,
  limit: number,
): Promise<TestRunRow[]> {
  return db
    .selectFrom('run_test_cases as t')
    .innerJoin('runs as r', 'r.id', 't.run_id')
    .select(['r.short_id as run_short_id', 't.status', 't.result', 't.flaky', 't.duration_ms', 't.started_at'])
    .select('t.finished_at')
    .where('t.test_case_id', '=', testCaseId)
    .where('t.finished_at', 'is not', null)
    .where('r.project_id', '=', projectId)
    .orderBy('t.finished_at', 'desc')
    .limit(limit)
    .execute();
}

/** The project's open issues counted per kind (kinds without one left out). */
export async function openIssueCounts(db: DB, projectId: string): Promise<{ kind: string; count: number }[]> {
  const rows = await db
    .selectFrom('issues')
    .select(['kind', sql<string>`count(*)`.as('n')])
    .where('project_id', '=', projectId)
    .where('status', '=', 'open')
    .groupBy('kind')
    .execute();
  return rows.map((r) => ({ kind: r.kind, count: Number(r.n) }));
}
