import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// Dashboard sign-in: a project API token is exchanged for a session. The cookie carries the session id,
// signed with a key every API replica reads from here (no new setting to share); the row keeps only the
// id's hash, the token it came from (so revoking the token ends the session) and the form (CSRF) secret.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('dashboard_signing_keys')
    .addColumn('id', 'serial', (c) => c.primaryKey())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db
    .insertInto('dashboard_signing_keys')
    .values({ secret: randomBytes(32).toString('base64url') })
    .execute();

  await db.schema
    .createTable('dashboard_sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('token_id', 'uuid', (c) => c.notNull().references('api_tokens.id').onDelete('cascade'))
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('csrf_secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dashboard_sessions_expires').on('dashboard_sessions').column('expires_at').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('dashboard_sessions').execute();
  await db.schema.dropTable('dashboard_signing_keys').execute();
}
