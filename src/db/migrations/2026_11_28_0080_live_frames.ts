import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// The live view of a burn-in or a running test: one row per live session holding only the LATEST screencast frame
// (JPEG) and the steps recorded so far. The worker overwrites it while the browser runs and deletes it when the
// activity ends, so frames are never kept (the dashboard's live page reads it from the API process).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('live_frames')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'uuid', (c) => c.notNull())
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('frame', 'bytea')
    .addColumn('frame_url', 'text')
    .addColumn('frame_seq', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('steps', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('watched_at', 'timestamptz')
    .addColumn('started_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('live_frames_pkey', ['kind', 'subject_id'])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('live_frames').execute();
}
