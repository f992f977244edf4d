import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// Chat conversations, their messages (one row per user message and per assistant reply, written before the
// reply is processed so nothing accepted is lost), and the runs a conversation started (it may only read those).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const now = sql`now()`;

  await db.schema
    .createTable('chats')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('short_id', 'text', (c) => c.notNull().unique())
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('title', 'text')
    .addColumn('source', 'text', (c) => c.notNull().check(sql`source in ('api', 'ui', 'github', 'gitlab', 'system')`))
    .addColumn('application_overrides', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('turn_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('idempotency_key', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addUniqueConstraint('chats_project_idempotency', ['project_id', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('chats_project_updated').on('chats').columns(['project_id', 'updated_at']).execute();

  await db.schema
    .createTable('chat_messages')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('seq', 'bigserial', (c) => c.notNull().unique())
    .addColumn('chat_id', 'uuid', (c) => c.notNull().references('chats.id').onDelete('cascade'))
    .addColumn('turn', 'integer', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('user', 'assistant')`))
    .addColumn('text', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('status', 'text', (c) =>
      c.check(sql`status in ('INITIATED', 'PARTIAL', 'COMPLETED', 'CANCELLED', 'FAILED')`),
    )
    .addColumn('is_streaming', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('tools_used', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('idempotency_key', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addUniqueConstraint('chat_messages_turn_role', ['chat_id', 'turn', 'role'])
    .addUniqueConstraint('chat_messages_idempotency', ['chat_id', 'idempotency_key'])
    .execute();

  await db.schema
    .createTable('chat_runs')
    .addColumn('chat_id', 'uuid', (c) => c.notNull().references('chats.id').onDelete('cascade'))
    .addColumn('run_id', 'uuid', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addPrimaryKeyConstraint('chat_runs_pk', ['chat_id', 'run_id'])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('chat_runs').execute();
  await db.schema.dropTable('chat_messages').execute();
  await db.schema.dropTable('chats').execute();
}
