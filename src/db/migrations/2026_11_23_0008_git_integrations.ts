import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// A project's connection to a Git hosting service: GitHub as an App (app id + private key) or with a token,
// GitLab with a project or group access token. Secrets are write-only through the API. One integration per
// provider per project: a review names only the provider and the repository.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const now = sql`now()`;
  await db.schema
    .createTable('git_integrations')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('short_id', 'text', (c) => c.notNull().unique())
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull().check(sql`provider in ('github', 'gitlab')`))
    .addColumn('auth', 'text', (c) => c.notNull().check(sql`auth in ('app', 'token')`))
    .addColumn('app_id', 'text')
    .addColumn('private_key', 'text')
    .addColumn('token', 'text')
    .addColumn('webhook_secret', 'text')
    // Null: the provider's public service (api.github.com, gitlab.com).
    .addColumn('base_url', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addUniqueConstraint('git_integrations_project_provider', ['project_id', 'provider'])
    // An App needs its id and key, a token integration its token: a row can never be half-configured.
    .addCheckConstraint(
      'git_integrations_credentials',
      sql`(auth = 'app' and provider = 'github' and app_id is not null and private_key is not null and token is null)
          or (auth = 'token' and token is not null and app_id is null and private_key is null)`,
    )
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('git_integrations').execute();
}
