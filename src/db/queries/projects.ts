import type { Updateable } from 'kysely';
import type { DB } from '../database.js';
import type { ProjectsTable } from '../schema.js';

/** The project's settings columns; undefined for an unknown project. */
export async function findProjectSettings(db: DB, projectId: string) {
  return db
    .selectFrom('projects')
    .select(['heal_policy', 'test_retries', 'quarantine_flake_rate', 'quarantine_min_runs'])
    .where('id', '=', projectId)
    .executeTakeFirst();
}

export async function updateProject(db: DB, projectId: string, set: Updateable<ProjectsTable>): Promise<void> {
  await db.updateTable('projects').set(set).where('id', '=', projectId).execute();
}

export async function findHealPolicy(db: DB, projectId: string) {
  const row = await db.selectFrom('projects').select('heal_policy').where('id', '=', projectId).executeTakeFirst();
  return row?.heal_policy;
}

/** The plan a run of the project runs when none is named (null: the project has no default plan). */
export async function defaultTestPlanId(db: DB, projectId: string): Promise<string | null> {
  return (
    await db.selectFrom('projects').select('default_test_plan_id').where('id', '=', projectId).executeTakeFirstOrThrow()
  ).default_test_plan_id;
}
