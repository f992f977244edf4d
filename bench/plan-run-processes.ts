// bench/plan-run with BENCH_WORKERS=N: N worker processes (plan-run-worker.ts) on the run's task queue, each
// with its own database pool, browser pool and Temporal connection, as N `proctor worker` processes would run.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface BenchWorkerOptions {
  databaseUrl: string;
  temporalAddress: string;
  taskQueue: string;
  blobDir: string;
  /** Browser contexts per process. */
  concurrency: number;
  activitySlots: number;
  dbPoolSize: number;
  /** The stand-in body's sleep; absent: real replays (and Chromium warmed on `warmUrl` first). */
  standInMs?: number;
  warmUrl?: string;
  /** More environment for the processes (bench/observability.ts: OTEL_* and the metrics port). */
  env?: Record<string, string>;
}

export interface BenchWorkers {
  /** Identity (`bench-worker-<i>`) -> the process's pid. */
  pids: Map<string, number>;
  /** SIGTERM, drain, and each process's count of executeTest calls (identity -> count). Idempotent. */
  stop(): Promise<Map<string, number>>;
}

const script = fileURLToPath(new URL('./plan-run-worker.ts', import.meta.url));

interface One {
  identity: string;
  child: ChildProcess;
  ready: Promise<void>;
  executed: Promise<number>;
}

function startOne(identity: string, opts: BenchWorkerOptions): One {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    BENCH_WORKER_IDENTITY: identity,
    BENCH_WORKER_DATABASE_URL: opts.databaseUrl,
    BENCH_WORKER_TEMPORAL: opts.temporalAddress,
    BENCH_WORKER_TASK_QUEUE: opts.taskQueue,
    BENCH_WORKER_BLOB_DIR: opts.blobDir,
    BENCH_WORKER_CONCURRENCY: String(opts.concurrency),
    BENCH_WORKER_ACTIVITY_SLOTS: String(opts.activitySlots),
    BENCH_WORKER_DB_POOL: String(opts.dbPoolSize),
    ...(opts.standInMs !== undefined && { BENCH_WORKER_STANDIN_MS: String(opts.standInMs) }),
    ...(opts.warmUrl && { BENCH_WORKER_WARM_URL: opts.warmUrl }),
    ...opts.env,
  };
  const child = spawn(process.execPath, ['--import', 'tsx', script], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  let markReady: () => void = () => {};
  let markExecuted: (n: number) => void = () => {};
  const exited = new Promise<never>((_, reject) =>
    child.once('close', (code, signal) => reject(new Error(`${identity} exited (${code ?? signal})`))),
  );
  const ready = Promise.race([new Promise<void>((resolve) => (markReady = resolve)), exited]);
  const executed = Promise.race([new Promise<number>((resolve) => (markExecuted = resolve)), exited]);
  // Both are awaited later (or never, when a worker fails to start): no unhandled rejection meanwhile.
  ready.catch(() => undefined);
  executed.catch(() => undefined);
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    if (/^ready$/m.test(out)) markReady();
    const count = /^executed (\d+)$/m.exec(out);
    if (count) markExecuted(Number(count[1]));
  });
  return { identity, child, ready, executed };
}

/** Starts `count` worker processes and resolves once every one polls (bundling the workflows takes seconds). */
export async function startBenchWorkers(count: number, opts: BenchWorkerOptions): Promise<BenchWorkers> {
  const all = Array.from({ length: count }, (_, i) => startOne(`bench-worker-${i + 1}`, opts));
  let stopping: Promise<Map<string, number>> | undefined;
  const workers: BenchWorkers = {
    pids: new Map(all.map((w) => [w.identity, w.child.pid!])),
    stop: () =>
      (stopping ??= (async () => {
        const counts = new Map<string, number>();
        await Promise.all(
          all.map(async (w) => {
            if (w.child.exitCode !== null || w.child.signalCode !== null) return;
            w.child.kill('SIGTERM');
            const timer = setTimeout(() => w.child.kill('SIGKILL'), 30_000);
            counts.set(w.identity, await w.executed.catch(() => NaN));
            clearTimeout(timer);
          }),
        );
        return counts;
      })()),
  };
  try {
    await Promise.all(all.map((w) => w.ready));
  } catch (err) {
    await workers.stop();
    throw err;
  }
  return workers;
}
