import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// The auth toolkit: a config may be a TOTP seed (`type = 'totp'`, always secret, resolved to the current code when
// a step runs), and an environment may carry HTTP basic auth, extra headers and preset cookies (`access`, jsonb:
// secrets inside are write-only in the API, like secret configs).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('configs')
    .addColumn('type', 'text', (c) =>
      c
        .notNull()
        .defaultTo('plain')
        .check(sql`type in ('plain', 'totp')`),
    )
    .execute();
  await db.schema.alterTable('environments').addColumn('access', 'jsonb').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('environments').dropColumn('access').execute();
  await db.schema.alterTable('configs').dropColumn('type').execute();
}
