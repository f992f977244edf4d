import type { DB } from '../database.js';
import type { EnvironmentAccess } from '../../domain/environment-access.js';
import { keyring, type Keyring } from '../secrets.js';

/** The access with each secret (the password, secret headers and cookies) passed through `transform`. */
async function mapSecrets(
  access: EnvironmentAccess,
  transform: (value: string) => Promise<string>,
): Promise<EnvironmentAccess> {
  const secret = <T extends { value: string; isSecret: boolean }>(entry: T): Promise<T> =>
    entry.isSecret ? transform(entry.value).then((value) => ({ ...entry, value })) : Promise.resolve(entry);
  return {
    ...access,
    ...(access.httpCredentials && {
      httpCredentials: { ...access.httpCredentials, password: await transform(access.httpCredentials.password) },
    }),
    headers: await Promise.all(access.headers.map(secret)),
    cookies: await Promise.all(access.cookies.map(secret)),
  };
}

// Secrets inside are sealed at rest (src/db/secrets.ts): access leaves this module opened and enters it sealed.
const opened = async (db: DB, stored: unknown, ring: Keyring = keyring()): Promise<EnvironmentAccess | null> =>
  stored ? mapSecrets(stored as EnvironmentAccess, (v) => ring.open(db, v)) : null;

/** The access as stored: every secret in it sealed (one sealed already is opened first, so none is sealed twice). */
export async function sealedAccess(
  db: DB,
  access: EnvironmentAccess,
  ring: Keyring = keyring(),
): Promise<EnvironmentAccess> {
  return mapSecrets(access, async (v) => ring.seal(db, await ring.open(db, v)));
}

export async function readEnvironmentAccess(db: DB, environmentId: string): Promise<EnvironmentAccess | null> {
  const row = await db.selectFrom('environments').select('access').where('id', '=', environmentId).executeTakeFirst();
  return opened(db, row?.access);
}

export async function writeEnvironmentAccess(db: DB, environmentId: string, access: EnvironmentAccess): Promise<void> {
  await db
    .updateTable('environments')
    .set({ access: JSON.stringify(await sealedAccess(db, access)) })
    .where('id', '=', environmentId)
    .execute();
}

/**
 * The access of the application's environment a run on `baseUrl` targets: the one with that URL's origin (the
 * default environment first). A URL no environment of the application has gets none: credentials are only ever
 * sent to the origin they were given for.
 */
export async function accessForTarget(
  db: DB,
  applicationId: string,
  baseUrl: string,
): Promise<EnvironmentAccess | null> {
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
  return opened(db, chosen?.access);
}
