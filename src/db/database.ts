import { mkdirSync } from 'node:fs';
import { Kysely, Migrator, PostgresDialect, type KyselyPlugin, type MigrationResultSet } from 'kysely';
import { PGlite } from '@electric-sql/pglite';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import type { Database } from './schema.js';
import { migrations } from './migrations/index.js';
import { createChangeFeed, createPgliteChangeFeed, type ChangeFeed } from './change-feed.js';
import { LocalWritePlugin, type LocalWriteHandler } from './local-writes.js';

export type DB = Kysely<Database>;

export type DatabaseTarget =
  | { kind: 'postgres'; url: string; maxConnections?: number }
  // dataDir undefined = in memory (tests); a path keeps data across restarts (proctor dev). `from`: a dump of a data
  // directory (PGlite's dumpDataDir) to start from instead of an empty one: starting PGlite empty runs initdb in
  // WebAssembly, seconds of CPU, so the test suite migrates one database and starts the others from its dump.
  | { kind: 'pglite'; dataDir?: string; from?: Blob };

const warn = (msg: string, err?: string) =>
  process.stderr.write(JSON.stringify({ time: new Date().toISOString(), level: 'warn', msg, err }) + '\n');

/** A pool that also closes the change feed when Kysely's `destroy()` ends it. */
class FeedPool extends pg.Pool {
  feed?: ChangeFeed;
  override async end(): Promise<void> {
    await this.feed?.close();
    return super.end();
  }
}

const feeds = new WeakMap<DB, ChangeFeed>();
const localWrites = new WeakMap<DB, LocalWritePlugin>();

/**
 * The LISTEN/NOTIFY feed of a database made by `createDatabase` (on Postgres it connects on the first
 * subscription). Undefined for a handle made otherwise (`db.withPlugin`, a transaction).
 */
export const changeFeedOf = (db: DB): ChangeFeed | undefined => feeds.get(db);

/**
 * Calls `handler` with the table each insert, update or delete made through `db` or its transactions wrote, after
 * the statement returns (see `LocalWritePlugin`). Returns the unsubscribe; a no-op for a handle made otherwise.
 */
export function onLocalWrite(db: DB, handler: LocalWriteHandler): () => void {
  const plugin = localWrites.get(db);
  plugin?.handlers.add(handler);
  return () => plugin?.handlers.delete(handler);
}

/** `plugins`: for the handle itself (a handle from `db.withPlugin` is another object, without the feed). */
export function createDatabase(target: DatabaseTarget, extraPlugins: KyselyPlugin[] = []): DB {
  const writes = new LocalWritePlugin();
  const plugins = [...extraPlugins, writes];
  const made = (db: DB, feed: ChangeFeed) => {
    feeds.set(db, feed);
    localWrites.set(db, writes);
    return db;
  };
  if (target.kind === 'postgres') {
    const pool = new FeedPool({ connectionString: target.url, max: target.maxConnections ?? 10 });
    // A connection the server drops (restart, failover) says so as an 'error' event on its client. The pool listens
    // on a client only while it is idle (and re-emits on itself); a client in use, between a transaction's
    // statements say, had no listener, and the event crashed the process: a worker died so when PostgreSQL
    // restarted under load (the fault matrix). Every client now has its own listener; the broken one fails what
    // uses it and the pool drops it when it is released.
    pool.on('connect', (client) => client.on('error', (err) => warn('database connection lost', err.message)));
    pool.on('error', () => {}); // the client's own listener has logged it
    pool.feed = createChangeFeed(target.url, (msg) => warn(msg));
    return made(new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins }), pool.feed);
  }
  if (target.dataDir) mkdirSync(target.dataDir, { recursive: true });
  // One options object: PGlite reads its second argument only when the first is a directory.
  const pglite = new PGlite({ dataDir: target.dataDir, loadDataDir: target.from });
  return made(new Kysely<Database>({ dialect: new PGliteDialect(pglite), plugins }), createPgliteChangeFeed(pglite));
}

export async function migrateToLatest(db: DB): Promise<MigrationResultSet> {
  // Migrations are typed on Kysely<any> on purpose: they are frozen and never see today's schema types.
  const migrator = new Migrator({
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    db: db as unknown as Kysely<any>,
    provider: { getMigrations: async () => migrations },
  });
  const result = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`migration ${failed ?? '(unknown)'} failed: ${String(result.error)}`, { cause: result.error });
  }
  return result;
}

export async function pingDatabase(db: DB): Promise<void> {
  await db.selectNoFrom((eb) => eb.val(1).as('one')).execute();
}
