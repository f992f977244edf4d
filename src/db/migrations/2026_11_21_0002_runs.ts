import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const now = sql`now()`;

  await db.schema
    .createTable('runs')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('short_id', 'text', (c) => c.notNull().unique())
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('test_plan_id', 'uuid', (c) => c.references('test_plans.id').onDelete('set null'))
    .addColumn('rerun_of_run_id', 'uuid', (c) => c.references('runs.id').onDelete('set null'))
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('INITIATED')
        .check(sql`status in ('INITIATED', 'RUNNING', 'COMPLETED', 'ERROR', 'CANCELLED')`),
    )
    .addColumn('result', 'text', (c) => c.check(sql`result in ('PASSED', 'FAILED', 'SKIPPED')`))
    .addColumn('error', 'text')
    .addColumn('trigger', 'text', (c) => c.notNull().defaultTo('API'))
    .addColumn('actor', 'text')
    .addColumn('branch', 'text')
    .addColumn('commit_hash', 'text')
    .addColumn('commit_message', 'text')
    .addColumn('repository', 'text')
    .addColumn('notifications', 'jsonb')
    .addColumn('test_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('started_at', 'timestamptz')
    .addColumn('finished_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('runs_project_created').on('runs').columns(['project_id', 'created_at']).execute();

  await db.schema
    .createTable('run_test_cases')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('run_id', 'uuid', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('test_case_id', 'uuid', (c) => c.references('test_cases.id').onDelete('set null'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('goal', 'text')
    .addColumn('application_id', 'uuid', (c) => c.notNull())
    .addColumn('environment_url', 'text')
    .addColumn('device', 'jsonb')
    .addColumn('resume_from_test_case_id', 'uuid')
    .addColumn('wait_for_test_case_ids', sql`uuid[]`, (c) => c.notNull().defaultTo(sql`'{}'::uuid[]`))
    .addColumn('in_plan', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('PENDING')
        .check(sql`status in ('PENDING', 'RUNNING', 'COMPLETED', 'SKIPPED', 'ERROR', 'CANCELLED')`),
    )
    .addColumn('result', 'text', (c) => c.check(sql`result in ('PASSED', 'FAILED', 'SKIPPED')`))
    .addColumn('result_title', 'text')
    .addColumn('error', 'text')
    .addColumn('failed_step_index', 'integer')
    .addColumn('healed', 'jsonb')
    .addColumn('screenshot_key', 'text')
    .addColumn('trace_key', 'text')
    .addColumn('duration_ms', 'integer')
    .addColumn('started_at', 'timestamptz')
    .addColumn('finished_at', 'timestamptz')
    .addUniqueConstraint('run_test_cases_run_test_case', ['run_id', 'test_case_id'])
    .execute();

  await db.schema
    .createTable('test_plan_schedules')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('test_plan_id', 'uuid', (c) => c.notNull().references('test_plans.id').onDelete('cascade'))
    .addColumn('cron', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('temporal_schedule_id', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('test_plan_schedules').execute();
  await db.schema.dropTable('run_test_cases').execute();
  await db.schema.dropTable('runs').execute();
}
