import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// The trace a run was started in (its API request's, when tracing is on): the run's answer gives it, so an operator
// goes from a run to its spans. Null when tracing was off.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table runs add column trace_id text`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table runs drop column trace_id`.execute(db);
}
