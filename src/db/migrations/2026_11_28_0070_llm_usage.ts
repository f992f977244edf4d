import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// Usage accounting: one row per LLM call (model, tokens, whether they were estimated, its cost when the model has a
// price), tied to its project and to the work it served (a burn-in's test case, a run's heal, a chat turn, a change
// review); and a project's daily LLM budget. The ids are plain columns, not foreign keys: what a call cost stays
// counted in the project's days after the run or test case is deleted.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('llm_usage')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('prompt_tokens', 'integer', (c) => c.notNull())
    .addColumn('completion_tokens', 'integer', (c) => c.notNull())
    .addColumn('cached_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('estimated', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('cost_usd', 'double precision')
    .addColumn('test_case_id', 'uuid')
    .addColumn('run_id', 'uuid')
    .addColumn('run_test_case_id', 'uuid')
    .addColumn('chat_id', 'uuid')
    .addColumn('chat_message_id', 'uuid')
    .addColumn('change_review_id', 'uuid')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('llm_usage_project_created')
    .on('llm_usage')
    .columns(['project_id', 'created_at'])
    .execute();
  await db.schema.createIndex('llm_usage_test_case').on('llm_usage').column('test_case_id').execute();
  await db.schema.createIndex('llm_usage_run').on('llm_usage').column('run_id').execute();
  await db.schema.createIndex('llm_usage_chat_message').on('llm_usage').column('chat_message_id').execute();
  await db.schema.createIndex('llm_usage_change_review').on('llm_usage').column('change_review_id').execute();
  await db.schema
    .createTable('llm_budgets')
    .addColumn('project_id', 'uuid', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
    .addColumn('daily_tokens', 'bigint')
    .addColumn('daily_usd', 'double precision')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('llm_budgets').execute();
  await db.schema.dropTable('llm_usage').execute();
}
