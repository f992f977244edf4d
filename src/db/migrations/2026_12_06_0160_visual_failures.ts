import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// A failed visual check (an `assert_screenshot` step whose page no longer looks like its baseline) is a failure kind
// of its own: not an assertion on text, not a changed element.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table run_test_cases drop constraint run_test_cases_failure_kind_check`.execute(db);
  await sql`alter table run_test_cases add constraint run_test_cases_failure_kind_check check (failure_kind in
    ('assertion', 'element-missing', 'changed-ui', 'environment', 'test-definition', 'infrastructure', 'visual'))`.execute(
    db,
  );
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`update run_test_cases set failure_kind = 'assertion' where failure_kind = 'visual'`.execute(db);
  await sql`alter table run_test_cases drop constraint run_test_cases_failure_kind_check`.execute(db);
  await sql`alter table run_test_cases add constraint run_test_cases_failure_kind_check check (failure_kind in
    ('assertion', 'element-missing', 'changed-ui', 'environment', 'test-definition', 'infrastructure'))`.execute(db);
}
