import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// Change reviews: one row per review conversation, holding the request (mode, source, overrides, context, the raw
// diff or the pull/merge request's address), what was fetched for it (kept, so a retried or replayed step reads the
// same change instead of fetching a newer one), where it is, and its verdict as data. Also the missing index for
// reading a conversation's newest messages (chat_messages by chat, in order).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const now = sql`now()`;
  await db.schema
    .createTable('change_reviews')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('chat_id', 'uuid', (c) => c.notNull().unique().references('chats.id').onDelete('cascade'))
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('assistant_message_id', 'uuid', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull().check(sql`mode in ('pr', 'rawChanges')`))
    .addColumn('source', 'text', (c) => c.notNull().check(sql`source in ('api', 'github', 'gitlab')`))
    .addColumn('provider', 'text', (c) => c.check(sql`provider in ('github', 'gitlab')`))
    .addColumn('pr_url', 'text')
    .addColumn('change_description', 'text')
    .addColumn('diff', 'text')
    .addColumn('context', 'text')
    .addColumn('application_overrides', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('metadata', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('change', 'jsonb')
    .addColumn('state', 'text', (c) =>
      c
        .notNull()
        .defaultTo('QUEUED')
        .check(sql`state in ('QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED')`),
    )
    .addColumn('phase', 'text')
    .addColumn('run_id', 'uuid', (c) => c.references('runs.id').onDelete('set null'))
    .addColumn('verdict', 'text', (c) => c.check(sql`verdict in ('Approved', 'Changes Requested', 'Comment')`))
    .addColumn('summary', 'text')
    .addColumn('tests', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('failure_reason', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('completed_at', 'timestamptz')
    .execute();
  await db.schema
    .createIndex('change_reviews_project_created')
    .on('change_reviews')
    .columns(['project_id', 'created_at'])
    .execute();
  await db.schema.createIndex('chat_messages_chat_seq').on('chat_messages').columns(['chat_id', 'seq']).execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('chat_messages_chat_seq').execute();
  await db.schema.dropTable('change_reviews').execute();
}
