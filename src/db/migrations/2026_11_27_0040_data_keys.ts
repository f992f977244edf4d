import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// Data keys of the envelope encryption of secrets at rest (src/db/secrets.ts): each stored wrapped by the master key
// (which never touches the database), named by which master key wrapped it. Sealing what is stored in clear needs
// the master key, so it is not done here but by `encryptStoredSecrets` right after the migrations run.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('data_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('wrapped', 'text', (c) => c.notNull())
    .addColumn('master_key_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('data_keys').execute();
}
