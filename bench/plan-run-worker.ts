// One worker process of bench/plan-run with BENCH_WORKERS=N: the worker as `proctor worker` composes it (real
// bundle, real activities, its own browser pool and database pool) with the bench's settings, and, when asked,
// the bench's stand-in test body. Started by the bench, which reads two lines on stdout:
//   ready               polling the task queue (and, for real replays, Chromium warmed)
//   executed <n>        on SIGTERM, after draining: how many executeTest calls this process ran
// Settings come from the environment the bench sets (BENCH_WORKER_*).
import { randomBytes } from 'node:crypto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createDatabase } from '../src/db/database.js';
import { silentLogger } from '../src/logger.js';
import { createFsBlobStore } from '../src/storage/fs.js';
import { startWorker } from '../src/worker/worker.js';
import { counted, standInExecuteTest } from './plan-run-standin.js';
import { benchWorkerSettings, envInt } from './support.js';

const need = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required (bench/plan-run sets it)`);
  return value;
};

Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });

const standInMs = process.env.BENCH_WORKER_STANDIN_MS ? envInt('BENCH_WORKER_STANDIN_MS', 300) : undefined;
const db = createDatabase({
  kind: 'postgres',
  url: need('BENCH_WORKER_DATABASE_URL'),
  maxConnections: envInt('BENCH_WORKER_DB_POOL', 10),
});
const blobs = createFsBlobStore({
  dir: need('BENCH_WORKER_BLOB_DIR'),
  secret: randomBytes(32).toString('hex'),
  publicUrl: 'http://127.0.0.1:3000',
});
const executed = { n: 0 };
const worker = await startWorker(
  {
    address: need('BENCH_WORKER_TEMPORAL'),
    namespace: 'default',
    taskQueue: need('BENCH_WORKER_TASK_QUEUE'),
    maxConcurrentActivityTaskExecutions: envInt('BENCH_WORKER_ACTIVITY_SLOTS', 50),
    substitute: (activities, deps) => ({
      ...activities,
      executeTest: counted(
        standInMs === undefined ? activities.executeTest : standInExecuteTest(deps.blobs, standInMs),
        executed,
      ),
    }),
  },
  { ...benchWorkerSettings(envInt('BENCH_WORKER_CONCURRENCY', 20)), identity: need('BENCH_WORKER_IDENTITY') },
  { db, blobs, logger: silentLogger },
);
const warmUrl = process.env.BENCH_WORKER_WARM_URL;
if (warmUrl) await worker.deps.browsers.withContext({}, async ({ page }) => void (await page.goto(warmUrl)));
process.stdout.write('ready\n');

let stopping = false;
process.on('SIGTERM', () => {
  if (stopping) return;
  stopping = true;
  void worker
    .stop()
    .then(() => db.destroy())
    .then(
      () => {
        process.stdout.write(`executed ${executed.n}\n`);
        process.exit(0);
      },
      (err: unknown) => {
        process.stderr.write(`plan-run-worker: ${String(err)}\n`);
        process.exit(1);
      },
    );
});
worker.running.catch((err: unknown) => {
  process.stderr.write(`plan-run-worker: the worker failed: ${String(err)}\n`);
  process.exit(1);
});
