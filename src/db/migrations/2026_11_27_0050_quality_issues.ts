import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// Quality signals (console, exception, network, a11y) kept with the run test case that saw them (or the test case,
// for a burn-in), their counts on the run test case, and the project issues they are deduplicated into by
// fingerprint. A project says after how many clean runs an issue resolves itself, and which request URLs to ignore.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('run_test_cases').addColumn('signal_counts', 'jsonb').execute();
  await db.schema
    .alterTable('projects')
    .addColumn('issue_resolve_after_runs', 'integer', (c) => c.notNull().defaultTo(3))
    .execute();
  await db.schema
    .alterTable('projects')
    .addColumn('signal_ignore_urls', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .execute();
  await db.schema
    .createTable('quality_signals')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('run_test_case_id', 'uuid', (c) => c.references('run_test_cases.id').onDelete('cascade'))
    .addColumn('test_case_id', 'uuid')
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('rule', 'text')
    .addColumn('target', 'text')
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('page', 'text', (c) => c.notNull())
    .addColumn('step_index', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('quality_signals_run_test_case')
    .on('quality_signals')
    .column('run_test_case_id')
    .execute();
  await db.schema
    .createTable('issues')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('rule', 'text')
    .addColumn('page', 'text', (c) => c.notNull())
    .addColumn('sample_url', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('open'))
    .addColumn('occurrences', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('clean_runs', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('pages', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('test_case_ids', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('exported', 'jsonb')
    .addColumn('first_seen_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('resolved_at', 'timestamptz')
    .addUniqueConstraint('issues_project_fingerprint', ['project_id', 'fingerprint'])
    .execute();
  await db.schema
    .createIndex('issues_project_last_seen')
    .on('issues')
    .columns(['project_id', 'last_seen_at desc'])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('issues').execute();
  await db.schema.dropTable('quality_signals').execute();
  await db.schema.alterTable('projects').dropColumn('signal_ignore_urls').execute();
  await db.schema.alterTable('projects').dropColumn('issue_resolve_after_runs').execute();
  await db.schema.alterTable('run_test_cases').dropColumn('signal_counts').execute();
}
