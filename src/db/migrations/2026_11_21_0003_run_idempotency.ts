import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// A run created by a retried activity (a schedule's tick) must not be written twice: the key names the tick.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('runs')
    .addColumn('idempotency_key', 'text', (c) => c.unique())
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('runs').dropColumn('idempotency_key').execute();
}
