import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// One RUNNING step insertion per test case, enforced by the database: the service refuses a second one up front,
// but two requests at the same moment both passed that check, and the later one then failed while saving ("the
// steps changed"). Older duplicates, if any, end FAILED first so the index can be built.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    update step_insertions s set status = 'FAILED', failure_reason = 'another insertion into this test case was running', finished_at = now()
    where s.status = 'RUNNING' and exists (
      select 1 from step_insertions o
      where o.test_case_id = s.test_case_id and o.status = 'RUNNING' and (o.created_at, o.id) > (s.created_at, s.id)
    )`.execute(db);
  await sql`create unique index step_insertions_one_running on step_insertions (test_case_id) where status = 'RUNNING'`.execute(
    db,
  );
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index step_insertions_one_running`.execute(db);
}
