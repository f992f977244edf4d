import type { DB } from '../database.js';
import type { EnvironmentAccess } from '../../domain/environment-access.js';

export async function readEnvironmentAccess(db: DB, environmentId: string): Promise<EnvironmentAccess | null> {
  const row = await db.selectFrom('environments').select('access').where('id', '=', environmentId).executeTakeFirst();
  return (row?.access as EnvironmentAccess | null | undefined) ?? null;
}

export async function writeEnvironmentAccess(db: DB, environmentId: string, access: EnvironmentAccess): Promise<void> {
  await db.updateTable('environments').set({ access: JSON.stringify(access) }).where('id', '=', environmentId).execute();
}

/**
 * The access of the application's environment a run on `baseUrl` targets: the one with that URL's origin (the
 * default environment first). A URL no environment of the application has gets none: credentials are only ever
 * sent to the origin they were given for.
 */
export async function accessForTarget(db: DB, applicationId: string, baseUrl: string): Promise<EnvironmentAccess | null> {
  let origin: string;
  try {
    origin = new URL(baseUrl).origin;
  } catch {
    return null;
  }
  const rows = await db
    .selectFrom('environments as e')
    .innerJoin('applications as a', 'a.id', 'e.application_id')
    .select(['e.id', 'e.url', 'e.access', 'a.default_environment_id'])
    .where('e.application_id', '=', applicationId)
    .where('e.access', 'is not', null)
    .execute();
  const matching = rows.filter((r) => r.url && URL.canParse(r.url) && new URL(r.url).origin === origin);
  const chosen = matching.find((r) => r.id === r.default_environment_id) ?? matching[0];
  return (chosen?.access as EnvironmentAccess | undefined) ?? null;
}
