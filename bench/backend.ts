// Shared by the benchmarks that run Proctor's own back end (chat, discovery, live-view): PostgreSQL and a Temporal
// dev server as the tests start them, a migrated database with one project, a blob directory and the scripted LLM;
// Proctor's API and a worker on them; a helper that serves a fetch handler on a free port; and the frame of such a
// bench (runBackendBench). Everything started is registered in `closers`, which the bench runs in reverse at its end.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createDatabase, migrateToLatest } from '../src/db/database.js';
import { seedProject } from '../src/db/queries/admin.js';
import { silentLogger } from '../src/logger.js';
import { loadPrograms } from '../src/programs.js';
import { createFsBlobStore } from '../src/storage/fs.js';
import { createTemporalClientProvider, type TemporalClientProvider } from '../src/temporal/client.js';
import { startDevServer } from '../src/temporal/dev-server.js';
import { bundleWorkflows, startWorker, type WorkerSettings } from '../src/worker/worker.js';
import { createDatabaseIn, startPostgres } from '../test/support/postgres.js';
import { startScriptedLlm } from '../test/support/scripted-llm.js';
import { benchApp } from './app.js';
import { watchdog } from './support.js';

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

export type BenchBackend = Awaited<ReturnType<typeof startBenchBackend>>;

export interface BenchProctor {
  /** The API's origin, also its PROCTOR_APP_URL: the dashboard is served at its root, as `proctor api` serves it. */
  url: string;
  temporal: TemporalClientProvider;
  /** A JSON request to the API as the project's token; the answer's status and parsed body. */
  call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
}

/** Proctor's API and a worker with `settings` on the back end, composed as `proctor api` and `proctor worker` do. */
export async function startBenchProctor(
  closers: Closers,
  backend: BenchBackend,
  settings: WorkerSettings,
): Promise<BenchProctor> {
  const { temporalServer, bundle, db, blobs, taskQueue, token } = backend;
  const target = { address: temporalServer.address, namespace: 'default', taskQueue };
  const worker = await startWorker({ ...target, workflowBundle: bundle }, settings, {
    db,
    blobs,
    logger: silentLogger,
  });
  closers.push(() => worker.stop());
  const temporal = createTemporalClientProvider(target);
  closers.push(() => temporal.close());
  // The port is chosen first: the app's own URL is in its config.
  const port = await new Promise<number>((resolve) => {
    const probe = serve({ fetch: () => new Response(), hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) =>
      probe.close(() => resolve(info.port)),
    );
  });
  const appUrl = `http://127.0.0.1:${port}`;
  const app = benchApp({ db, appUrl, temporal, blobs });
  const url = await listen(closers, app.fetch, port);
  return {
    url,
    temporal,
    async call<T>(method: string, path: string, body?: unknown) {
      const res = await fetch(url + path, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as T };
    },
  };
}

export const loadAverage = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

/**
 * The frame of a back-end bench: a watchdog of `minutes`, Temporal's Runtime logging warnings only (worker state
 * changes are INFO; only problems matter here), the load average printed, then `body`. Whatever it started
 * (`closers`) is closed in reverse, and the process exits 1 when `body` threw or answered false (a goal not met).
 */
export async function runBackendBench(
  name: string,
  minutes: number,
  body: (closers: Closers) => Promise<boolean | void>,
): Promise<never> {
  watchdog(minutes * 60, name);
  Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
  const closers: Closers = [];
  let exitCode = 0;
  try {
    process.stdout.write(`load average at start: ${loadAverage()}\n`);
    if ((await body(closers)) === false) exitCode = 1;
  } catch (err) {
    process.stderr.write(`${name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    exitCode = 1;
  } finally {
    for (const close of closers.reverse())
      await close().catch((err: unknown) => process.stderr.write(`cleanup: ${String(err)}\n`));
  }
  process.exit(exitCode);
}
