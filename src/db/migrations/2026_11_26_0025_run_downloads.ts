import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// The files a run test's steps downloaded (RunDownload[] in src/domain/step-events.ts): blob keys the API turns
// into presigned links, as it does the trace and the screenshot.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('run_test_cases').addColumn('downloads', 'jsonb').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('run_test_cases').dropColumn('downloads').execute();
}
