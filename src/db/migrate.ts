import type { MigrationResultSet } from 'kysely';
import { migrateToLatest, type DB } from './database.js';
import { keyring } from './secrets.js';
import { sealStoredSecrets, type SealedCounts } from './queries/stored-secrets.js';

/**
 * The schema migrations, then the data migration that needs the master key and so cannot be one of them: every
 * secret stored in clear before encryption at rest is sealed. Both are idempotent; every process start runs them.
 */
export async function migrate(db: DB): Promise<MigrationResultSet & { sealed: SealedCounts }> {
  const result = await migrateToLatest(db);
  return { ...result, sealed: await sealStoredSecrets(db, keyring()) };
}
