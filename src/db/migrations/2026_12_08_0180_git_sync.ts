import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// Git sync (issue 37 part 2): a project keeps its test-case files in a folder of a repository it has a Git
// integration for. Per file: the text both sides last agreed on (the base syncDecision compares with) and what the
// last look found (a pull request opened, a conflict with both texts, a file removed or refused in the repository).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const now = sql`now()`;
  await db.schema
    .createTable('git_sync_settings')
    .addColumn('project_id', 'uuid', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull().check(sql`provider in ('github', 'gitlab')`))
    .addColumn('repository', 'text', (c) => c.notNull())
    .addColumn('folder', 'text', (c) => c.notNull())
    .addColumn('branch', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .execute();
  await db.schema
    .createIndex('git_sync_settings_repository')
    .on('git_sync_settings')
    .columns(['provider', 'repository'])
    .execute();
  await db.schema
    .createTable('git_sync_files')
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('test_case_id', 'uuid', (c) => c.references('test_cases.id').onDelete('set null'))
    .addColumn('base_text', 'text')
    .addColumn('state', 'text', (c) =>
      c.notNull().check(sql`state in ('in_sync', 'pull_request', 'conflict', 'removed', 'invalid')`),
    )
    .addColumn('reason', 'text')
    .addColumn('ours_text', 'text')
    .addColumn('theirs_text', 'text')
    .addColumn('pull_request_number', 'integer')
    .addColumn('pull_request_url', 'text')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addPrimaryKeyConstraint('git_sync_files_pkey', ['project_id', 'path'])
    .execute();
  await db.schema.createIndex('git_sync_files_test_case').on('git_sync_files').column('test_case_id').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('git_sync_files').execute();
  await db.schema.dropTable('git_sync_settings').execute();
}
