// What run-completion notifications read (the sending is src/notify/run-notifications.ts).
import type { DB } from '../database.js';

/** A run with its plan's name and its own `notifications` override, or undefined when the run does not exist. */
export async function findNotificationRun(db: DB, runId: string) {
  return db
    .selectFrom('runs as r')
    .leftJoin('test_plans as tp', 'tp.id', 'r.test_plan_id')
    .select(['r.id', 'r.short_id', 'r.status', 'r.result', 'r.test_plan_id', 'r.notifications', 'tp.name as plan_name'])
    .where('r.id', '=', runId)
    .executeTakeFirst();
}

/** The plan's notification recipients, by channel then target. */
export async function planNotificationRows(db: DB, testPlanId: string) {
  return db
    .selectFrom('test_plan_notifications')
    .selectAll()
    .where('test_plan_id', '=', testPlanId)
    .orderBy('channel')
    .orderBy('target')
    .execute();
}

/** The run fields a report shows (the run must exist). */
export async function runReportRow(db: DB, runId: string) {
  return db
    .selectFrom('runs')
    .select(['branch', 'commit_hash', 'test_count'])
    .where('id', '=', runId)
    .executeTakeFirstOrThrow();
}

/** The run's test cases a report counts, in the order they finished. */
export async function runReportTests(db: DB, runId: string) {
  return db
    .selectFrom('run_test_cases')
    .select(['name', 'status', 'result', 'error', 'result_title', 'flaky', 'quarantined', 'changes'])
    .where('run_id', '=', runId)
    .orderBy('finished_at')
    .orderBy('name')
    .execute();
}
