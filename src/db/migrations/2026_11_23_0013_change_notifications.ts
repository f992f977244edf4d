import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// The API caches token lookups and finished runs in memory (src/db/notified-cache.ts). These triggers notify
// on commit whenever something those entries were read from changes, whichever process or tool wrote it
// (`proctor admin`, a worker, another replica, plain SQL), so every API process drops them at once:
// - `proctor_token_changes`: a token revoked, deleted or moved; an organization suspended, lifted or deleted;
//   a project moved or deleted;
// - `proctor_run_changes`: a run or its tests written or deleted (a deleted plan or original run reaches the
//   run through its `set null` foreign key, an update too); a plan renamed.
// Triggers rather than calls in the writing code: a change made any other way is told too.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // tg_argv: the channel, then the key naming the row's id in the payload.
  await sql`
    create function proctor_notify_row_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify(tg_argv[0], json_build_object(tg_argv[1], old.id)::text);
      return null;
    end
    $$`.execute(db);
  // Per statement, once per run: a run's tests are written many rows at a time.
  await sql`
    create function proctor_notify_run_tests_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify('proctor_run_changes', json_build_object('runId', run_id)::text) from (select distinct run_id from changed) runs;
      return null;
    end
    $$`.execute(db);

  const rowTriggers: [table: string, channel: string, key: string, updateOf: string | null][] = [
    ['api_tokens', 'proctor_token_changes', 'tokenId', 'revoked_at, kind, project_id, token_hash'],
    ['organizations', 'proctor_token_changes', 'organizationId', 'suspended_at'],
    ['projects', 'proctor_token_changes', 'projectId', 'organization_id'],
    ['runs', 'proctor_run_changes', 'runId', null],
    ['test_plans', 'proctor_run_changes', 'planId', 'name, short_id'],
  ];
  for (const [table, channel, key, updateOf] of rowTriggers) {
    const args = sql.join([sql.lit(channel), sql.lit(key)]);
    await sql`
      create trigger ${sql.id(`${table}_notify_update`)} after update ${updateOf ? sql.raw(`of ${updateOf}`) : sql``} on ${sql.table(table)}
      for each row execute function proctor_notify_row_change(${args})`.execute(db);
    await sql`
      create trigger ${sql.id(`${table}_notify_delete`)} after delete on ${sql.table(table)}
      for each row execute function proctor_notify_row_change(${args})`.execute(db);
  }
  for (const [event, rows] of [
    ['insert', 'new'],
    ['update', 'old'],
    ['delete', 'old'],
  ] as const) {
    await sql`
      create trigger ${sql.id(`run_test_cases_notify_${event}`)} after ${sql.raw(event)} on run_test_cases
      referencing ${sql.raw(rows)} table as changed
      for each statement execute function proctor_notify_run_tests_change()`.execute(db);
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['api_tokens', 'organizations', 'projects', 'runs', 'test_plans']) {
    await sql`drop trigger ${sql.id(`${table}_notify_update`)} on ${sql.table(table)}`.execute(db);
    await sql`drop trigger ${sql.id(`${table}_notify_delete`)} on ${sql.table(table)}`.execute(db);
  }
  for (const event of ['insert', 'update', 'delete'])
    await sql`drop trigger ${sql.id(`run_test_cases_notify_${event}`)} on run_test_cases`.execute(db);
  await sql`drop function proctor_notify_run_tests_change()`.execute(db);
  await sql`drop function proctor_notify_row_change()`.execute(db);
}
