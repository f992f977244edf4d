import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// Discovery on a schedule (issue 34, item 5): an application's cron schedules of discoveries. The row is ours, the
// Temporal Schedule (`temporal_schedule_id`) keeps the clock; `notify` is where the news of a scheduled discovery
// (page patterns and forms the previous completed discovery did not have) is sent.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('discovery_schedules')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('application_id', 'uuid', (c) => c.notNull().references('applications.id').onDelete('cascade'))
    // Null: the application's default environment at each tick.
    .addColumn('environment_id', 'uuid', (c) => c.references('environments.id').onDelete('set null'))
    .addColumn('cron', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('budget', 'jsonb')
    .addColumn('intent', 'text', (c) => c.check(sql`char_length(intent) <= 500`))
    .addColumn('notify', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('temporal_schedule_id', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('discovery_schedules_application')
    .on('discovery_schedules')
    .columns(['application_id', 'created_at'])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('discovery_schedules').execute();
}
