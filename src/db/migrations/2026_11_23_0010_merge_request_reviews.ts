import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// Merge-request review: settings per project and repository, the webhook deliveries seen (each processed once),
// what the webhooks told about each open merge request and its deployments (deployment events name a commit,
// not a merge request), and the comments posted on a merge request (each posted once across retries).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const now = sql`now()`;

  await db.schema
    .createTable('merge_request_review_settings')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull().check(sql`provider in ('github', 'gitlab')`))
    .addColumn('repository', 'text', (c) => c.notNull())
    .addColumn('review_context', 'text')
    .addColumn('auto_run', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('include_drafts', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('comment_on_open', 'boolean', (c) => c.notNull().defaultTo(false))
    // Provider environment name -> application short id.
    .addColumn('environment_mapping', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('handle', 'text', (c) => c.notNull().defaultTo('@proctor'))
    // GitLab: the project hook created on save (its secret token is the Git integration's webhook secret).
    .addColumn('webhook_id', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    // A merge request's review workflow id names provider, repository and number only: one project per repository.
    .addUniqueConstraint('merge_request_review_settings_repository', ['provider', 'repository'])
    .execute();
  await db.schema
    .createIndex('merge_request_review_settings_project')
    .on('merge_request_review_settings')
    .column('project_id')
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('delivery_id', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('project_id', 'uuid', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('received_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    // Null until every signal of the delivery reached Temporal: a redelivery of an unsent one is processed again.
    .addColumn('processed_at', 'timestamptz')
    .addPrimaryKeyConstraint('webhook_deliveries_pk', ['provider', 'delivery_id'])
    .execute();

  await db.schema
    .createTable('merge_requests')
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('repository', 'text', (c) => c.notNull())
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('head_sha', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addPrimaryKeyConstraint('merge_requests_pk', ['provider', 'repository', 'number'])
    .execute();
  await db.schema
    .createIndex('merge_requests_head')
    .on('merge_requests')
    .columns(['provider', 'repository', 'head_sha'])
    .execute();

  await db.schema
    .createTable('merge_request_deployments')
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('repository', 'text', (c) => c.notNull())
    .addColumn('sha', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addPrimaryKeyConstraint('merge_request_deployments_pk', ['provider', 'repository', 'sha', 'environment'])
    .execute();

  await db.schema
    .createTable('merge_request_comments')
    // What the comment is for (`<workflow id>:start:<sha>`...): the same key is never posted twice.
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('comment_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('merge_request_comments').execute();
  await db.schema.dropTable('merge_request_deployments').execute();
  await db.schema.dropTable('merge_requests').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('merge_request_review_settings').execute();
}
