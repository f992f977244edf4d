import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// The verifying replay of a test case's burn-in (issue 32): its steps replayed in a fresh browser before they were
// saved, with its status, attempts, duration and, when it failed, the failing step and error. Null for test cases
// recorded before it existed.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table test_cases add column recording_check jsonb`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table test_cases drop column recording_check`.execute(db);
}
