// Shared by the benchmarks that run Proctor's own back end (chat, live-view): PostgreSQL and a Temporal dev server
// as the tests start them, a migrated database with one project, a blob directory and the scripted LLM, and a
// helper that serves a fetch handler on a free port. Everything started is registered in `closers`, which the
// bench runs in reverse at its end.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { createDatabase, migrateToLatest } from '../src/db/database.js';
import { seedProject } from '../src/db/queries/admin.js';
import { loadPrograms } from '../src/programs.js';
import { createFsBlobStore } from '../src/storage/fs.js';
import { startDevServer } from '../src/temporal/dev-server.js';
import { bundleWorkflows } from '../src/worker/worker.js';
import { createDatabaseIn, startPostgres } from '../test/support/postgres.js';
import { startScriptedLlm } from '../test/support/scripted-llm.js';

export type Closers = (() => Promise<unknown>)[];

/** Serves `fetch` on 127.0.0.1 (a free port unless given) and returns its URL; closed with the bench. */
export const listen = (
  closers: Closers,
  fetch: (req: Request) => Response | Promise<Response>,
  port = 0,
): Promise<string> =>
  new Promise((resolve, reject) => {
    const server: ServerType = serve({ fetch, hostname: '127.0.0.1', port }, (info: AddressInfo) =>
      resolve(`http://127.0.0.1:${info.port}`),
    );
    server.once('error', reject);
    closers.push(
      () =>
        new Promise<void>((done) => {
          server.close(() => done());
          if ('closeAllConnections' in server) server.closeAllConnections();
        }),
    );
  });

/**
 * Starts the back end a worker and the API need: `name` names the database (`bench_<name>_…`) and the project.
 * The blob store's public URL is `http://127.0.0.1:3000`, as a bench's own app URL.
 */
export async function startBenchBackend(closers: Closers, name: string) {
  const tools = loadPrograms();
  if (!tools.postgresBin || !tools.temporal)
    throw new Error('PostgreSQL or the Temporal CLI is missing: run `npm run setup:test`');
  const [postgres, temporalServer, bundle, llm] = await Promise.all([
    startPostgres(tools.postgresBin),
    startDevServer({ executable: tools.temporal }),
    bundleWorkflows(),
    startScriptedLlm(),
  ]);
  closers.push(
    () => postgres.stop(),
    () => temporalServer.stop(),
    () => llm.stop(),
  );
  const db = createDatabase({
    kind: 'postgres',
    url: await createDatabaseIn(postgres.url, `bench_${name}_${randomBytes(4).toString('hex')}`),
    maxConnections: 10,
  });
  closers.push(() => db.destroy());
  await migrateToLatest(db);
  const project = name.charAt(0).toUpperCase() + name.slice(1);
  const { token } = await seedProject(db, { organization: 'Bench', project });
  const blobDir = mkdtempSync(join(tmpdir(), 'proctor-bench-blobs-'));
  closers.push(async () => rmSync(blobDir, { recursive: true, force: true }));
  const blobs = createFsBlobStore({
    dir: blobDir,
    secret: randomBytes(32).toString('hex'),
    publicUrl: 'http://127.0.0.1:3000',
  });
  const taskQueue = `bench-${randomBytes(4).toString('hex')}`;
  return { tools, temporalServer, bundle, llm, db, token, blobs, taskQueue };
}
