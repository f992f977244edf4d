import type { DB } from '../database.js';

/**
 * Per step index, the newest screenshot of a run of the test case that stopped at that step, among runs started
 * since its steps last changed (an older run's step numbers may name other steps). Newest first per index.
 */
export async function stepFailureScreenshots(db: DB, projectId: string, testCaseId: string) {
  return db
    .selectFrom('run_test_cases as t')
    .innerJoin('runs as r', 'r.id', 't.run_id')
    .innerJoin('test_cases as c', 'c.id', 't.test_case_id')
    .distinctOn('t.failed_step_index')
    .select(['t.failed_step_index', 't.id', 't.started_at', 'r.short_id'])
    .where('r.project_id', '=', projectId)
    .where('c.project_id', '=', projectId)
    .where('t.test_case_id', '=', testCaseId)
    .where('t.failed_step_index', '>=', 0)
    .where('t.screenshot_key', 'is not', null)
    .whereRef('t.started_at', '>=', 'c.updated_at')
    .orderBy('t.failed_step_index')
    .orderBy('t.started_at', 'desc')
    .limit(200)
    .execute();
}
