import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const now = sql`now()`;

  await db.schema
    .createTable('organizations')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('suspended_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .execute();

  await db.schema
    .createTable('projects')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('organization_id', 'uuid', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('default_test_plan_id', 'uuid')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .execute();

  await db.schema
    .createTable('api_tokens')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('api', 'badge')`))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('last_used_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .execute();

  await db.schema
    .createTable('applications')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('short_id', 'text', (c) => c.notNull().unique())
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('web', 'ios', 'android')`))
    .addColumn('default_environment_id', 'uuid')
    .addColumn('default_device_preset_id', 'uuid')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .execute();

  await db.schema
    .createTable('application_builds')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('short_id', 'text', (c) => c.notNull().unique())
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('application_id', 'uuid', (c) => c.notNull().references('applications.id').onDelete('cascade'))
    .addColumn('platform', 'text', (c) => c.notNull().check(sql`platform in ('ios', 'android')`))
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('file_size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('blob_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .execute();

  await db.schema
    .createTable('environments')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('short_id', 'text', (c) => c.notNull().unique())
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('application_id', 'uuid', (c) => c.notNull().references('applications.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('url', 'text')
    .addColumn('application_build_id', 'uuid', (c) => c.references('application_builds.id').onDelete('set null'))
    .addColumn('is_production', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addCheckConstraint('environments_url_or_build', sql`url is not null or application_build_id is not null`)
    .execute();

  await db.schema
    .createTable('device_presets')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('short_id', 'text', (c) => c.notNull().unique())
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('viewport_width', 'integer', (c) => c.notNull())
    .addColumn('viewport_height', 'integer', (c) => c.notNull())
    .addColumn('device_scale_factor', 'real', (c) => c.notNull().defaultTo(1))
    .addColumn('is_mobile', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('has_touch', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('user_agent', 'text')
    .addColumn('locale', 'text')
    .addColumn('timezone_id', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .execute();

  await db.schema
    .createTable('configs')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('short_id', 'text', (c) => c.notNull().unique())
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('is_secret', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addUniqueConstraint('configs_project_name', ['project_id', 'name'])
    .execute();

  await db.schema
    .createTable('scenarios')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('short_id', 'text', (c) => c.notNull().unique())
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('instructions', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .execute();

  await db.schema
    .createTable('test_cases')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('application_id', 'uuid', (c) => c.notNull().references('applications.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('goal', 'text')
    .addColumn('expected_result', 'text')
    .addColumn('is_enabled', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('labels', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('classification', 'text', (c) => c.notNull().defaultTo('functional'))
    .addColumn('generation_status', 'text', (c) => c.notNull().defaultTo('GENERATING'))
    .addColumn('failure_reason', 'text')
    .addColumn('scenario_id', 'uuid', (c) => c.references('scenarios.id').onDelete('set null'))
    .addColumn('config_ids', sql`uuid[]`, (c) => c.notNull().defaultTo(sql`'{}'::uuid[]`))
    .addColumn('resume_from_test_case_id', 'uuid', (c) => c.references('test_cases.id').onDelete('set null'))
    .addColumn('wait_for_test_case_ids', sql`uuid[]`, (c) => c.notNull().defaultTo(sql`'{}'::uuid[]`))
    .addColumn('steps', 'jsonb')
    .addColumn('steps_version', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .execute();
  await db.schema
    .createIndex('test_cases_project_created')
    .on('test_cases')
    .columns(['project_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('test_plans')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('short_id', 'text', (c) => c.notNull().unique())
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('owner', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .execute();

  await db.schema
    .createTable('test_plan_test_cases')
    .addColumn('test_plan_id', 'uuid', (c) => c.notNull().references('test_plans.id').onDelete('cascade'))
    .addColumn('test_case_id', 'uuid', (c) => c.notNull().references('test_cases.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('test_plan_test_cases_pk', ['test_plan_id', 'test_case_id'])
    .execute();

  await db.schema
    .createTable('test_plan_applications')
    .addColumn('test_plan_id', 'uuid', (c) => c.notNull().references('test_plans.id').onDelete('cascade'))
    .addColumn('application_id', 'uuid', (c) => c.notNull().references('applications.id').onDelete('cascade'))
    .addColumn('environment_id', 'uuid', (c) => c.notNull().references('environments.id').onDelete('restrict'))
    .addColumn('device_preset_id', 'uuid', (c) => c.references('device_presets.id').onDelete('set null'))
    .addPrimaryKeyConstraint('test_plan_applications_pk', ['test_plan_id', 'application_id'])
    .execute();

  await db.schema
    .createTable('test_plan_notifications')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('test_plan_id', 'uuid', (c) => c.notNull().references('test_plans.id').onDelete('cascade'))
    .addColumn('channel', 'text', (c) => c.notNull().check(sql`channel in ('email', 'slack')`))
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('slack_channel', 'text')
    .addColumn('notify_on', 'text', (c) => c.notNull().check(sql`notify_on in ('failure', 'always')`))
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'test_plan_notifications',
    'test_plan_applications',
    'test_plan_test_cases',
    'test_plans',
    'test_cases',
    'scenarios',
    'configs',
    'device_presets',
    'environments',
    'application_builds',
    'applications',
    'api_tokens',
    'projects',
    'organizations',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
