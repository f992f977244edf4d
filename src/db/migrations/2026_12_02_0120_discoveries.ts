import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// Discovery (issue 34): a run that explores an application breadth first (`discoveries`), the page each visit found
// (`discovery_pages`, unique per discovery and normalized URL: a retried visit finds its row and visits nothing
// again), and the tests suggested from the map (`discovery_suggestions`, whose `fingerprint` keeps a rejected
// suggestion from being proposed again in the project).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const now = sql`now()`;
  await db.schema
    .createTable('discoveries')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('short_id', 'text', (c) => c.notNull().unique())
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('application_id', 'uuid', (c) => c.notNull().references('applications.id').onDelete('cascade'))
    .addColumn('environment_id', 'uuid', (c) => c.references('environments.id').onDelete('set null'))
    .addColumn('start_url', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('QUEUED')
        .check(sql`status in ('QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED')`),
    )
    .addColumn('budget', 'jsonb', (c) => c.notNull())
    .addColumn('intent', 'text', (c) => c.check(sql`char_length(intent) <= 500`))
    .addColumn('resume_from_test_case_id', 'uuid', (c) => c.references('test_cases.id').onDelete('set null'))
    .addColumn('pages', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('actions', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('stop_reason', 'text')
    .addColumn('error', 'text')
    .addColumn('workflow_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('started_at', 'timestamptz')
    .addColumn('finished_at', 'timestamptz')
    .execute();
  await db.schema
    .createIndex('discoveries_application_created')
    .on('discoveries')
    .columns(['application_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('discovery_pages')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('discovery_id', 'uuid', (c) => c.notNull().references('discoveries.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('final_url', 'text', (c) => c.notNull())
    .addColumn('pattern', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('headings', 'jsonb', (c) => c.notNull())
    .addColumn('forms', 'jsonb', (c) => c.notNull())
    .addColumn('actions', 'jsonb', (c) => c.notNull())
    .addColumn('links', 'jsonb', (c) => c.notNull())
    .addColumn('actions_used', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('operated', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('error', 'text')
    .addColumn('visited_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addUniqueConstraint('discovery_pages_url', ['discovery_id', 'url'])
    .execute();
  await db.schema
    .createIndex('discovery_pages_pattern')
    .on('discovery_pages')
    .columns(['discovery_id', 'pattern'])
    .execute();

  await db.schema
    .createTable('discovery_suggestions')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('discovery_id', 'uuid', (c) => c.notNull().references('discoveries.id').onDelete('cascade'))
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('goal', 'text', (c) => c.notNull())
    .addColumn('expected_result', 'text', (c) => c.notNull())
    .addColumn('start_url', 'text', (c) => c.notNull())
    .addColumn('covers', 'jsonb', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('rank', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('PROPOSED')
        .check(sql`status in ('PROPOSED', 'ACCEPTED', 'REJECTED')`),
    )
    .addColumn('test_case_id', 'uuid', (c) => c.references('test_cases.id').onDelete('set null'))
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('decided_at', 'timestamptz')
    .addUniqueConstraint('discovery_suggestions_fingerprint', ['discovery_id', 'fingerprint'])
    .execute();
  // "Never proposed again": the rejected fingerprints of a project, looked up before a suggestion is written.
  await db.schema
    .createIndex('discovery_suggestions_project_fingerprint')
    .on('discovery_suggestions')
    .columns(['project_id', 'fingerprint', 'status'])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('discovery_suggestions').execute();
  await db.schema.dropTable('discovery_pages').execute();
  await db.schema.dropTable('discoveries').execute();
}
