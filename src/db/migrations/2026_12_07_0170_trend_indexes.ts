import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// Trends (issue 36) read a plan's last runs and whether each had a flaky test. Without these, a plan's trend reads
// every run of the project (runs had only (project_id, created_at)), and a run's flaky tests every test of the run
// (10,000 in a large one); the partial index holds only the flaky rows, a few per run.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index runs_test_plan_created on runs (test_plan_id, created_at desc)`.execute(db);
  await sql`create index run_test_cases_flaky on run_test_cases (run_id) where flaky`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index run_test_cases_flaky`.execute(db);
  await sql`drop index runs_test_plan_created`.execute(db);
}
