import type { DB } from '../database.js';

type ShortIdTable =
  'applications' | 'environments' | 'device_presets' | 'configs' | 'scenarios' | 'test_plans' | 'application_builds';

/** The internal id of a project's row by short id; undefined when absent or owned by another project. */
export async function findIdByShortId(
  db: DB,
  table: ShortIdTable,
  projectId: string,
  shortId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom(table)
    .select('id')
    .where('short_id', '=', shortId)
    .where('project_id', '=', projectId)
    .executeTakeFirst();
  return row?.id;
}

export const findDevicePresetId = (db: DB, projectId: string, shortId: string) =>
  findIdByShortId(db, 'device_presets', projectId, shortId);
