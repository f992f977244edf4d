import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// "Insert a step here": a person describes a step in words at a position of a test case's steps; an insertStep
// workflow replays the steps before it and lets the agent record the described step. One row per request, so the
// API and the dashboard have something to poll (RUNNING → COMPLETED with the new steps version | FAILED with why).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('step_insertions')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('test_case_id', 'uuid', (c) => c.notNull().references('test_cases.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('based_on_version', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('RUNNING'))
    .addColumn('failure_reason', 'text')
    .addColumn('version', 'integer')
    .addColumn('inserted_steps', 'integer')
    .addColumn('actor', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('finished_at', 'timestamptz')
    .execute();
  await db.schema
    .createIndex('step_insertions_test_case_idx')
    .on('step_insertions')
    .columns(['test_case_id', 'created_at'])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('step_insertions').execute();
}
