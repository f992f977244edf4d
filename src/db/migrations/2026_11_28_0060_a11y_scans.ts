import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// What axe-core found on a document a project's tests visited, by the document's digest (its markup and styles):
// a later test or run that meets the same document reuses the findings instead of scanning again, which is what
// keeps quality signals cheap on replays. Kept a week at most (src/services/a11y-scans.ts).
// And which burn-in a signal came from: a burn-in activity that is retried after it stored its signals does not
// count them twice.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('a11y_scans')
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('findings', 'jsonb', (c) => c.notNull())
    .addColumn('scanned_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('a11y_scans_pkey', ['project_id', 'digest'])
    .execute();
  await db.schema.createIndex('a11y_scans_age').on('a11y_scans').columns(['project_id', 'scanned_at']).execute();
  await db.schema.alterTable('quality_signals').addColumn('burn_in', 'text').execute();
  await db.schema
    .createIndex('quality_signals_burn_in')
    .on('quality_signals')
    .column('burn_in')
    .where(sql.ref('burn_in'), 'is not', null)
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('quality_signals').dropColumn('burn_in').execute();
  await db.schema.dropTable('a11y_scans').execute();
}
