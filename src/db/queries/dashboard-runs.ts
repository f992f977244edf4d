import type { DB } from '../database.js';
import type { RunStatus } from '../schema.js';

export interface DashboardRunFilter {
  planShortId?: string;
  status?: RunStatus;
  branch?: string;
  limit: number;
  offset: number;
}

/** A page of the project's runs for the dashboard's list, newest first, and how many match in all. */
export async function listDashboardRuns(db: DB, projectId: string, filter: DashboardRunFilter) {
  let q = db
    .selectFrom('runs as r')
    .leftJoin('test_plans as p', 'p.id', 'r.test_plan_id')
    .where('r.project_id', '=', projectId);
  if (filter.planShortId) q = q.where('p.short_id', '=', filter.planShortId);
  if (filter.status) q = q.where('r.status', '=', filter.status);
  if (filter.branch) q = q.where('r.branch', '=', filter.branch);
  const [rows, total] = await Promise.all([
    q
      .select([
        'r.short_id',
        'r.status',
        'r.result',
        'r.trigger',
        'r.branch',
        'r.test_count',
        'r.created_at',
        'r.started_at',
        'r.finished_at',
        'p.name as plan_name',
      ])
      .orderBy('r.created_at', 'desc')
      .orderBy('r.id')
      .limit(filter.limit)
      .offset(filter.offset)
      .execute(),
    q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

/** The project's plans, for a filter's choices. */
export async function planChoices(db: DB, projectId: string) {
  return db
    .selectFrom('test_plans')
    .select(['short_id', 'name'])
    .where('project_id', '=', projectId)
    .orderBy('name')
    .execute();
}

/** The recorded steps of some test cases of the project (to name a run's failing step). */
export async function stepsOf(db: DB, projectId: string, testCaseIds: string[]): Promise<Map<string, unknown>> {
  if (testCaseIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('test_cases')
    .select(['id', 'steps'])
    .where('project_id', '=', projectId)
    .where('id', 'in', testCaseIds)
    .execute();
  return new Map(rows.map((r) => [r.id, r.steps]));
}

/** One test of one of the project's runs: where its screenshot and trace are stored. */
export async function runTestArtifacts(db: DB, projectId: string, runShortId: string, runTestId: string) {
  return db
    .selectFrom('run_test_cases as t')
    .innerJoin('runs as r', 'r.id', 't.run_id')
    .select(['t.screenshot_key', 't.trace_key', 't.name', 't.evidence', 't.failed_step_index'])
    .where('r.project_id', '=', projectId)
    .where('r.short_id', '=', runShortId)
    .where('t.id', '=', runTestId)
    .executeTakeFirst();
}
