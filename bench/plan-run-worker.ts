// One worker process of bench/plan-run with BENCH_WORKERS=N: the worker as `proctor worker` composes it (real
// bundle, real activities, its own browser pool and database pool) with the bench's settings, and, when asked,
// the bench's stand-in test body. Started by the bench, which reads two lines on stdout:
//   ready               polling the task queue (and, for real replays, Chromium warmed)
//   executed <n>        on SIGTERM, after draining: how many executeTest calls this process ran
// Settings come from the environment the bench sets (BENCH_WORKER_*). With BENCH_WORKER_METRICS_PORT the process
// also measures as `proctor worker` does (src/cli/serve.ts runWorker): Temporal's runtime metrics, Proctor's
// registry and the backlog gauges served on that port; and it traces when OTEL_* ask for it (src/tracing-setup.ts).
import { randomBytes } from 'node:crypto';
import { createDatabase } from '../src/db/database.js';
import { installRuntimeWithMetrics, startProcessMetrics } from '../src/cli/metrics.js';
import { silentLogger } from '../src/logger.js';
import { startTracing } from '../src/tracing-setup.js';
import { createFsBlobStore } from '../src/storage/fs.js';
import { createWorkerConnection } from '../src/temporal/worker-connection.js';
import { installRuntimeWithoutSignalHandlers, startWorker } from '../src/worker/worker.js';
import { counted, standInExecuteTest } from './plan-run-standin.js';
import { benchWorkerSettings, envInt } from './support.js';

const need = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required (bench/plan-run sets it)`);
  return value;
};

const metricsPort = process.env.BENCH_WORKER_METRICS_PORT ? envInt('BENCH_WORKER_METRICS_PORT', 0) : undefined;
// The Runtime as `proctor worker` installs it (the SDK's lines through Proctor's logger, silent here), with its core
// metrics exporter only when measuring: the two modes of bench/observability.ts differ in nothing else.
if (metricsPort === undefined) installRuntimeWithoutSignalHandlers({ logger: silentLogger });
else await installRuntimeWithMetrics(silentLogger);
const tracing = startTracing('proctor-worker');

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
const taskQueue = need('BENCH_WORKER_TASK_QUEUE');
// As `proctor worker`: one connection for the worker and its backlog gauges.
const temporal = createWorkerConnection({ address: need('BENCH_WORKER_TEMPORAL'), namespace: 'default', taskQueue });
const stopMetrics =
  metricsPort === undefined
    ? async () => {}
    : await startProcessMetrics(
        { mode: 'worker', HOST: '127.0.0.1', PROCTOR_METRICS_PORT: metricsPort },
        silentLogger,
        temporal,
      );
const executed = { n: 0 };
const worker = await startWorker(
  {
    address: need('BENCH_WORKER_TEMPORAL'),
    namespace: 'default',
    taskQueue,
    connection: await temporal.connection(),
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
    .then(() => stopMetrics())
    .then(() => temporal.close())
    .then(() => tracing?.shutdown())
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
