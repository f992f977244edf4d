import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// How a project keeps healed locators (`auto`: saved after a passing run; `review`: proposed, a person accepts),
// and the proposals themselves: the whole healed step list, the version it would become, and who decided.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('projects')
    .addColumn('heal_policy', 'text', (c) =>
      c
        .notNull()
        .defaultTo('review')
        .check(sql`heal_policy in ('auto', 'review')`),
    )
    .execute();

  await db.schema
    .createTable('heal_proposals')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('test_case_id', 'uuid', (c) => c.notNull().references('test_cases.id').onDelete('cascade'))
    .addColumn('based_on_version', 'integer', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('steps', 'jsonb', (c) => c.notNull())
    .addColumn('healed', 'jsonb', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('PENDING')
        .check(sql`status in ('PENDING', 'ACCEPTED', 'REJECTED', 'SUPERSEDED')`),
    )
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('decided_at', 'timestamptz')
    .addUniqueConstraint('heal_proposals_test_case_version', ['test_case_id', 'version'])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('heal_proposals').execute();
  await db.schema.alterTable('projects').dropColumn('heal_policy').execute();
}
