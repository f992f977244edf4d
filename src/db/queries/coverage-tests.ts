import { sql } from 'kysely';
import type { DB } from '../database.js';
import type { CoverageTestRow } from '../../domain/coverage-tests.js';
import type { Step } from '../../domain/steps.js';

/**
 * An application's test cases as the coverage map reads them (disabled ones too: a dependency still runs first),
 * with each one's last passing run. One query; the last pass is served by the (test_case_id, finished_at) index.
 */
export async function coverageTestRows(db: DB, projectId: string, applicationId: string): Promise<CoverageTestRow[]> {
  const rows = await db
    .selectFrom('test_cases as t')
    .select(['t.id', 't.name', 't.is_enabled', 't.steps', 't.resume_from_test_case_id'])
    .select((eb) =>
      eb
        .selectFrom('run_test_cases as r')
        .select(sql<Date | string | null>`max(r.finished_at)`.as('last'))
        .whereRef('r.test_case_id', '=', 't.id')
        .where('r.result', '=', 'PASSED')
        .as('last_passed_at'),
    )
    .where('t.project_id', '=', projectId)
    .where('t.application_id', '=', applicationId)
    .orderBy('t.created_at')
    .orderBy('t.id')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    enabled: r.is_enabled,
    steps: Array.isArray(r.steps) ? (r.steps as Step[]) : null,
    resumeFromId: r.resume_from_test_case_id,
    lastPassedAt: r.last_passed_at === null ? null : new Date(r.last_passed_at).toISOString(),
  }));
}
