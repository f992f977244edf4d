import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// Proctor's own email inbox: the addresses that accept mail (a run's, a project's named ones), and each received
// message's metadata. The bodies live in the blob store under `blob_key`; both go after `expires_at` (7 days).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('inbox_addresses')
    .addColumn('address', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createTable('inbox_messages')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'integer', (c) => c.notNull())
    .addColumn('blob_key', 'text', (c) => c.notNull())
    .addColumn('received_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  // A step waits for the newest mail to one address; the API lists a project's newest first.
  await db.schema
    .createIndex('inbox_messages_to_received')
    .on('inbox_messages')
    .columns(['to_address', 'received_at desc'])
    .execute();
  await db.schema
    .createIndex('inbox_messages_project_received')
    .on('inbox_messages')
    .columns(['project_id', 'received_at desc'])
    .execute();
  await db.schema.createIndex('inbox_messages_expires').on('inbox_messages').column('expires_at').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('inbox_messages').execute();
  await db.schema.dropTable('inbox_addresses').execute();
}
