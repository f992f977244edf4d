// Sealing what was stored in clear before secrets were encrypted at rest, and re-wrapping data keys under a new
// master key. Both run from `proctor migrate` / `proctor admin`, never from a request.
import type { DB } from '../database.js';
import type { EnvironmentAccess } from '../../domain/environment-access.js';
import { masterKeyId, unwrapDataKey, wrapDataKey } from '../envelope.js';
import { isSealed, SecretUnreadableError, type Keyring } from '../secrets.js';
import { listDataKeys, rewrapDataKey } from './data-keys.js';
import { sealedAccess } from './environment-access.js';

/** How many stored secrets of each kind were sealed. */
export interface SealedCounts {
  configs: number;
  gitIntegrations: number;
  environments: number;
}

const inClear = (value: string | null | undefined): value is string =>
  typeof value === 'string' && value !== '' && !isSealed(value);

/** Seals every secret still stored in clear; what is sealed already is left as it is, so a second run seals nothing. */
export async function sealStoredSecrets(db: DB, ring: Keyring): Promise<SealedCounts> {
  const counts: SealedCounts = { configs: 0, gitIntegrations: 0, environments: 0 };
  const configs = await db
    .selectFrom('configs')
    .select(['id', 'value'])
    .where((eb) => eb.or([eb('is_secret', '=', true), eb('type', '=', 'totp')]))
    .where('value', 'not like', 'enc:v1:%')
    .where('value', '<>', '')
    .execute();
  for (const c of configs) {
    await db
      .updateTable('configs')
      .set({ value: await ring.seal(db, c.value) })
      .where('id', '=', c.id)
      .where('value', '=', c.value)
      .execute();
    counts.configs++;
  }
  const integrations = await db
    .selectFrom('git_integrations')
    .select(['id', 'private_key', 'token', 'webhook_secret'])
    .execute();
  for (const row of integrations) {
    const fields = (['private_key', 'token', 'webhook_secret'] as const).filter((f) => inClear(row[f]));
    if (fields.length === 0) continue;
    const sealed = Object.fromEntries(
      await Promise.all(fields.map(async (f) => [f, await ring.seal(db, row[f]!)] as const)),
    );
    await db.updateTable('git_integrations').set(sealed).where('id', '=', row.id).execute();
    counts.gitIntegrations++;
  }
  const environments = await db
    .selectFrom('environments')
    .select(['id', 'access'])
    .where('access', 'is not', null)
    .execute();
  for (const env of environments) {
    const access = env.access as EnvironmentAccess;
    const clear = [
      access.httpCredentials?.password,
      ...access.headers.filter((h) => h.isSecret).map((h) => h.value),
      ...access.cookies.filter((c) => c.isSecret).map((c) => c.value),
    ];
    if (!clear.some(inClear)) continue;
    await db
      .updateTable('environments')
      .set({ access: JSON.stringify(await sealedAccess(db, access, ring)) })
      .where('id', '=', env.id)
      .execute();
    counts.environments++;
  }
  return counts;
}

/**
 * Re-wraps every data key from `from` to `to` in one transaction: the sealed values stay as they are, and only the
 * new master key opens them afterwards. A data key wrapped by neither is refused before anything changes.
 */
export async function rewrapDataKeys(db: DB, from: Buffer, to: Buffer): Promise<number> {
  const [fromId, toId] = [masterKeyId(from), masterKeyId(to)];
  return db.transaction().execute(async (trx) => {
    const keys = await listDataKeys(trx);
    const foreign = keys.filter((k) => k.master_key_id !== fromId && k.master_key_id !== toId);
    if (foreign.length > 0)
      throw new SecretUnreadableError(
        `data keys ${foreign.map((k) => k.id).join(', ')} are wrapped by another master key (${foreign[0]!.master_key_id})`,
      );
    let rewrapped = 0;
    for (const k of keys.filter((key) => key.master_key_id === fromId)) {
      await rewrapDataKey(trx, k.id, wrapDataKey(to, k.id, unwrapDataKey(from, k.id, k.wrapped)), toId);
      rewrapped++;
    }
    return rewrapped;
  });
}
