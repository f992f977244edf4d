import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// Failed dashboard sign-ins, one row per failure and per key it counts against (the client address, the token
// prefix), so every API process of an installation throttles from the same counts. Rows older than the throttle's
// window are deleted as new failures come in.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sign_in_failures')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('address', 'prefix')`))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('failed_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sign_in_failures_key')
    .on('sign_in_failures')
    .columns(['kind', 'key', 'failed_at'])
    .execute();
  await db.schema.createIndex('sign_in_failures_failed_at').on('sign_in_failures').column('failed_at').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sign_in_failures').execute();
}
