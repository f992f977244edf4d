// What importing a test-case file writes beyond a test case's ordinary fields (test-cases.ts): the steps of a new
// test case as if burned in, its configs and scenario, and the secret configs a file must not spell out.
import type { DB } from '../database.js';
import type { Step } from '../../domain/steps.js';
import { openSecret } from '../secrets.js';

/** A new test case's steps from a file: recorded (COMPLETED) at version 1, without a burn-in. */
export async function setImportedSteps(db: DB, id: string, steps: Step[]): Promise<void> {
  await db
    .updateTable('test_cases')
    .set({ steps: JSON.stringify(steps), steps_version: 1, generation_status: 'COMPLETED', updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

/** The configs and scenario a file names (a PATCH cannot change them; a file says the whole test case). */
export async function setConfigsAndScenario(
  db: DB,
  id: string,
  configIds: string[],
  scenarioId: string | null,
): Promise<void> {
  await db
    .updateTable('test_cases')
    .set({ config_ids: configIds, scenario_id: scenarioId, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

/** The values of the secret configs among these, by name: an exported or imported file must not contain them. */
export async function secretConfigValues(
  db: DB,
  projectId: string,
  configIds: string[],
): Promise<{ name: string; value: string }[]> {
  if (configIds.length === 0) return [];
  const rows = await db
    .selectFrom('configs')
    .select(['name', 'value'])
    .where('project_id', '=', projectId)
    .where('id', 'in', configIds)
    .where('is_secret', '=', true)
    .execute();
  return Promise.all(rows.map(async (r) => ({ name: r.name, value: await openSecret(db, r.value) })));
}
