import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// Every change that can make a cached token lookup wrong (a token revoked, deleted or moved; an organization
// suspended, lifted or deleted; a project moved or deleted) notifies `proctor_token_changes` when it commits,
// whichever process or tool wrote it, so every API process forgets the lookups at once. Triggers rather than
// calls in the admin code: a change made with plain SQL is told too.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function proctor_notify_token_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify('proctor_token_changes', json_build_object(tg_argv[0], old.id)::text);
      return null;
    end
    $$`.execute(db);
  const triggers: [table: string, key: string, update: string][] = [
    ['api_tokens', 'tokenId', 'revoked_at, kind, project_id, token_hash'],
    ['organizations', 'organizationId', 'suspended_at'],
    ['projects', 'projectId', 'organization_id'],
  ];
  for (const [table, key, columns] of triggers) {
    await sql`
      create trigger ${sql.id(`${table}_token_change_on_update`)} after update of ${sql.raw(columns)} on ${sql.table(table)}
      for each row execute function proctor_notify_token_change(${sql.lit(key)})`.execute(db);
    await sql`
      create trigger ${sql.id(`${table}_token_change_on_delete`)} after delete on ${sql.table(table)}
      for each row execute function proctor_notify_token_change(${sql.lit(key)})`.execute(db);
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['api_tokens', 'organizations', 'projects']) {
    await sql`drop trigger ${sql.id(`${table}_token_change_on_update`)} on ${sql.table(table)}`.execute(db);
    await sql`drop trigger ${sql.id(`${table}_token_change_on_delete`)} on ${sql.table(table)}`.execute(db);
  }
  await sql`drop function proctor_notify_token_change()`.execute(db);
}
