import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// Verdicts a reader can trust: what changed on each replayed step's element (`changes`), why a failed test
// failed (`failure_kind`, with its `evidence`), retries and flakiness, quarantine, and what a burn-in agent said
// it did not check (`not_covered`). All additive: `status` and `result` keep their meaning for QA.tech's clients.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('run_test_cases')
    .addColumn('changes', 'jsonb')
    .addColumn('failure_kind', 'text', (c) =>
      c.check(
        sql`failure_kind in ('assertion', 'element-missing', 'changed-ui', 'environment', 'test-definition', 'infrastructure')`,
      ),
    )
    .addColumn('evidence', 'jsonb')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('flaky', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('quarantined', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  // A test's flake rate reads its last runs, newest first.
  await db.schema
    .createIndex('run_test_cases_test_case_finished')
    .on('run_test_cases')
    .columns(['test_case_id', 'finished_at desc'])
    .execute();

  await db.schema
    .alterTable('test_cases')
    .addColumn('quarantined', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('not_covered', 'jsonb')
    .execute();

  await db.schema
    .alterTable('projects')
    .addColumn('test_retries', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(1)
        .check(sql`test_retries between 0 and 3`),
    )
    // Quarantine rule: a flake rate at or above this over at least `quarantine_min_runs` runs; null is off.
    .addColumn('quarantine_flake_rate', 'real', (c) =>
      c.check(sql`quarantine_flake_rate > 0 and quarantine_flake_rate <= 1`),
    )
    .addColumn('quarantine_min_runs', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(10)
        .check(sql`quarantine_min_runs between 1 and 20`),
    )
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['quarantine_min_runs', 'quarantine_flake_rate', 'test_retries'])
    await db.schema.alterTable('projects').dropColumn(column).execute();
  for (const column of ['not_covered', 'quarantined'])
    await db.schema.alterTable('test_cases').dropColumn(column).execute();
  await db.schema.dropIndex('run_test_cases_test_case_finished').execute();
  for (const column of ['quarantined', 'flaky', 'attempts', 'evidence', 'failure_kind', 'changes'])
    await db.schema.alterTable('run_test_cases').dropColumn(column).execute();
}
