import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// A webhook delivery keeps the signals it is to send until Temporal has them all: when the engine is down the
// delivery is still accepted (GitHub does not redeliver by itself, and GitLab disables a hook that keeps
// failing), and the API sends the signals once the engine is back (src/services/webhooks.ts).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').addColumn('signals', 'jsonb').execute();
  await db.schema
    .alterTable('webhook_deliveries')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('webhook_deliveries').addColumn('last_error', 'text').execute();
  await db.schema
    .createIndex('webhook_deliveries_pending')
    .on('webhook_deliveries')
    .column('received_at')
    .where(sql.ref('processed_at'), 'is', null)
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_pending').execute();
  for (const column of ['last_error', 'attempts', 'signals'])
    await db.schema.alterTable('webhook_deliveries').dropColumn(column).execute();
}
