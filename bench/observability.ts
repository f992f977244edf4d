// What tracing and metrics cost a plan run (issue 35: goal ≤ 1.03). One project, one plan of N stand-in tests
// (bench/plan-dag.ts, the DAG of bench/plan-run.ts; the stand-in body of bench/plan-run-standin.ts: a 300 ms sleep
// that reads and writes the resume-from state blobs, no browser), run again and again in two modes, alternating:
//
// - off: the worker processes as bench/plan-run.ts starts them, no OTEL_* set, no metrics listener;
// - on:  the same processes measuring as `proctor worker` does (Temporal's runtime metrics, Proctor's registry, the
//        backlog gauges, served on a listener of their own) and scraped every BENCH_SCRAPE_MS during the run, and
//        tracing to an OTLP collector stand-in (test/support/otlp-collector.ts, in this process) through OTEL_*;
//        this process, which plays the API (createPlanRun + startPlanRun, as POST /v1/run does), traces too, so
//        the workflows carry its trace context as they do in production.
//
// Each run gets fresh worker processes, started before its clock. Per run it prints the wall time (the API's
// calls to the workflow's result), the run's makespan (its row), and the CPU seconds of the worker processes and
// of Temporal + PostgreSQL, read from /proc over the run; then each figure's median per mode, their ratio
// (on / off at the median) and the spread of the per-pair ratios. CPU is the figure to trust on a shared machine;
// wall time follows the machine's load. This process's own CPU (the collector decoding spans, the scraper) is
// shown apart and not counted.
//
//   npm run bench:observability
//   BENCH_TESTS=1000        tests in the plan (default 1000)
//   BENCH_ROUNDS=4          on/off pairs (default 4; the order alternates: off,on then on,off ...)
//   BENCH_WORKERS=1         worker processes (default 1); run concurrency = workers x BENCH_CONCURRENCY
//   BENCH_CONCURRENCY=20    browser pool per worker (default 20)
//   BENCH_STANDIN_MS=300    the stand-in body's sleep (default 300 ms)
//   BENCH_SCRAPE_MS=5000    how often each worker's /metrics is scraped in the "on" runs (default 5 s)
//   BENCH_WARMUP=20         tests of an unmeasured plan each fresh worker runs first (default 20; 0: none): what a
//                           process pays once (the exporter's first load, Temporal's first metrics) is not the
//                           overhead a long-lived worker's run sees
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PlanRunResult } from '../workflows/plan-run-contract.js';
import { workflowIds } from '../workflows/shared.js';
import { createDatabase, migrateToLatest } from '../src/db/database.js';
import { createTestPlan } from '../src/db/queries/test-plans.js';
import { loadPrograms } from '../src/programs.js';
import { createPlanRun } from '../src/services/runs.js';
import { createTemporalClientProvider } from '../src/temporal/client.js';
import { startDevServer } from '../src/temporal/dev-server.js';
import { startPlanRun } from '../src/temporal/lifecycle.js';
import { startTracing } from '../src/tracing-setup.js';
import { freePort } from '../test/support/net.js';
import { startOtlpCollector } from '../test/support/otlp-collector.js';
import { createDatabaseIn, startPostgres } from '../test/support/postgres.js';
import { insertRecordedTestCase } from '../test/support/recorded.js';
import { buildPlanDag } from './plan-dag.js';
import { startBenchWorkers } from './plan-run-processes.js';
import { descendants, processCpu } from '../test/support/processes.js';
import { envInt, fixed, median, seedBenchApplication, table, watchdog } from './support.js';

const tests = envInt('BENCH_TESTS', 1000);
const rounds = envInt('BENCH_ROUNDS', 4);
const workerCount = envInt('BENCH_WORKERS', 1);
const perWorker = envInt('BENCH_CONCURRENCY', 20);
const standInMs = envInt('BENCH_STANDIN_MS', 300);
const scrapeMs = envInt('BENCH_SCRAPE_MS', 5000);
const warmupTests = envInt('BENCH_WARMUP', 20);
watchdog(envInt('BENCH_TIMEOUT_S', 60 * 60), 'bench/observability');

type Mode = 'off' | 'on';

interface RunFigures {
  mode: Mode;
  wallMs: number;
  makespanMs: number;
  /** CPU seconds over the run: the worker processes; Temporal and PostgreSQL; this process (not counted). */
  workerCpu: number;
  serverCpu: number;
  benchCpu: number;
  spans: number;
  scrapes: number;
}

/** CPU seconds so far of this process's descendants, by group (a reaped child's time lands in its parent's). */
function cpu(workerPids: number[]): { workers: number; servers: number; bench: number } {
  const workers = new Set(workerPids.flatMap((pid) => [pid, ...descendants(pid)]));
  const out = { workers: 0, servers: 0, bench: process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6 };
  for (const pid of descendants(process.pid)) {
    const cpu = processCpu(pid);
    if (!cpu) continue;
    const seconds = cpu.own + cpu.reaped;
    const comm = cpu.comm;
    if (workers.has(pid)) out.workers += seconds;
    else if (/^(temporal|postgres|runuser)/.test(comm)) out.servers += seconds;
  }
  return out;
}

/** The last "on" run's spans by service and name. */
const spanNames = new Map<string, number>();

const tools = loadPrograms();
if (!tools.postgresBin || !tools.temporal) throw new Error('PostgreSQL and the Temporal CLI: run npm run setup:test');
const blobDir = mkdtempSync(join(tmpdir(), 'proctor-bench-observability-'));
const [postgres, temporal, collector] = await Promise.all([
  startPostgres(tools.postgresBin),
  startDevServer({ executable: tools.temporal }),
  startOtlpCollector(),
]);
const stopAll = async () => {
  await collector.stop();
  await temporal.stop();
  await postgres.stop();
  rmSync(blobDir, { recursive: true, force: true });
};
process.once('SIGINT', () => void stopAll().finally(() => process.exit(130)));

try {
  const databaseUrl = await createDatabaseIn(postgres.url, 'bench_observability');
  const db = createDatabase({ kind: 'postgres', url: databaseUrl, maxConnections: 4 });
  await migrateToLatest(db);
  const { tenant, appId } = await seedBenchApplication(db, 'Observability', 'http://127.0.0.1:9/start');
  const ids = new Map<string, string>();
  for (const t of buildPlanDag(tests, 5)) {
    const id = await insertRecordedTestCase(db, {
      projectId: tenant.projectId,
      applicationId: appId,
      name: t.name,
      steps: [{ action: 'navigate', value: `/page?t=${t.name}`, description: 'Open the page' }],
      resumeFrom: t.resumeFrom && ids.get(t.resumeFrom),
      waitFor: t.waitFor.map((d) => ids.get(d)!),
    });
    ids.set(t.name, id);
  }
  const planShortId = await createTestPlan(db, tenant.projectId, {
    name: 'All',
    isDefault: true,
    testCaseIds: [...ids.values()],
  });

  const warmupIds: string[] = [];
  for (let i = 0; i < warmupTests; i++)
    warmupIds.push(
      await insertRecordedTestCase(db, {
        projectId: tenant.projectId,
        applicationId: appId,
        name: `warm-up ${i + 1}`,
        steps: [{ action: 'navigate', value: `/page?t=warm-up-${i + 1}`, description: 'Open the page' }],
      }),
    );
  const warmupPlan = warmupTests
    ? await createTestPlan(db, tenant.projectId, { name: 'Warm-up', isDefault: false, testCaseIds: warmupIds })
    : undefined;

  const runOnce = async (mode: Mode, taskQueue: string): Promise<RunFigures> => {
    const ports = mode === 'on' ? await Promise.all(Array.from({ length: workerCount }, () => freePort())) : [];
    // One process per worker: each its own metrics port (startBenchWorkers passes one env to all, so one each).
    const groups = await Promise.all(
      Array.from({ length: workerCount }, (_, i) =>
        startBenchWorkers(1, {
          databaseUrl,
          temporalAddress: temporal.address,
          taskQueue,
          blobDir,
          concurrency: perWorker,
          activitySlots: Math.max(50, 2 * perWorker),
          dbPoolSize: 10,
          standInMs,
          env:
            mode === 'on'
              ? {
                  BENCH_WORKER_METRICS_PORT: String(ports[i]),
                  OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
                  OTEL_SERVICE_NAME: `bench-worker-${i + 1}`,
                }
              : {},
        }),
      ),
    );
    const pids = groups.flatMap((g) => [...g.pids.values()]);
    const tracing =
      mode === 'on' ? startTracing('proctor-api', { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url }) : undefined;
    const client = createTemporalClientProvider({ address: temporal.address, namespace: 'default', taskQueue });
    const handleOf = await client.get();
    collector.spans.length = 0;
    let scrapes = 0;
    const scraper =
      mode === 'on'
        ? setInterval(() => {
            for (const port of ports)
              void fetch(`http://127.0.0.1:${port}/metrics`).then(
                async (r) => void (await r.text(), r.ok && scrapes++),
                () => undefined,
              );
          }, scrapeMs)
        : undefined;
    // A plan run as POST /v1/run makes one; its result once it ends.
    const planRun = async (testPlanShortId: string, expected: number) => {
      const run = await createPlanRun(
        { db },
        { projectId: tenant.projectId, testPlanShortId, meta: { trigger: 'API', actor: 'bench' } },
      );
      await startPlanRun(client, {
        runId: run.id,
        runShortId: run.shortId,
        projectId: tenant.projectId,
        concurrency: workerCount * perWorker,
        heal: true,
      });
      const result = (await handleOf.workflow.getHandle(workflowIds.planRun(run.shortId)).result()) as PlanRunResult;
      if (result.counts.PASSED !== expected) throw new Error(`the run did not pass: ${JSON.stringify(result.counts)}`);
      return run;
    };
    let figures: RunFigures;
    try {
      if (warmupPlan) await planRun(warmupPlan, warmupTests);
      // Spans counted are the measured run's (a warm-up span still in a batch may land among them).
      collector.spans.length = 0;
      const before = cpu(pids);
      const t0 = Date.now();
      const run = await planRun(planShortId, tests);
      const wallMs = Date.now() - t0;
      const after = cpu(pids);
      const row = await db.selectFrom('runs').selectAll().where('id', '=', run.id).executeTakeFirstOrThrow();
      figures = {
        mode,
        wallMs,
        makespanMs: row.finished_at!.getTime() - row.started_at!.getTime(),
        workerCpu: after.workers - before.workers,
        serverCpu: after.servers - before.servers,
        benchCpu: after.bench - before.bench,
        spans: 0,
        scrapes,
      };
    } finally {
      clearInterval(scraper);
      // The workers flush their spans as they stop: counted after.
      await Promise.all(groups.map((g) => g.stop()));
      await tracing?.shutdown();
      await client.close();
    }
    if (mode === 'on') {
      spanNames.clear();
      for (const span of collector.spans)
        spanNames.set(`${span.service}: ${span.name}`, (spanNames.get(`${span.service}: ${span.name}`) ?? 0) + 1);
    }
    return { ...figures, spans: collector.spans.length };
  };

  const runs: RunFigures[] = [];
  for (let r = 0; r < rounds; r++) {
    const order: Mode[] = r % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
    for (const mode of order) {
      const f = await runOnce(mode, `bench-obs-${r}-${mode}`);
      runs.push(f);
      process.stderr.write(
        `round ${r + 1} ${mode}: wall ${fixed(f.wallMs / 1000, 1)} s, worker CPU ${fixed(f.workerCpu, 1)} s, servers ${fixed(f.serverCpu, 1)} s, spans ${f.spans}, scrapes ${f.scrapes}\n`,
      );
    }
  }
  await db.destroy();
  report(runs);
} finally {
  await stopAll();
}
process.exit(0);

function report(runs: RunFigures[]): void {
  const out = (s: string) => process.stdout.write(s);
  out(
    `\ntracing + metrics overhead: ${tests} stand-in tests (${standInMs} ms each), ${workerCount} worker process(es) x ${perWorker} slots, ${rounds} on/off pairs, scrape every ${scrapeMs / 1000} s, ${cpus().length} cores\n\n`,
  );
  out(
    table(
      [
        '#',
        'mode',
        'wall s',
        'makespan s',
        'worker CPU s',
        'Temporal+PG CPU s',
        'bench CPU s (not counted)',
        'spans',
        'scrapes',
      ],
      runs.map((f, i) => [
        i + 1,
        f.mode,
        fixed(f.wallMs / 1000, 1),
        fixed(f.makespanMs / 1000, 1),
        fixed(f.workerCpu, 2),
        fixed(f.serverCpu, 2),
        fixed(f.benchCpu, 2),
        f.spans,
        f.scrapes,
      ]),
    ),
  );
  const figures: [string, (f: RunFigures) => number][] = [
    ['wall', (f) => f.wallMs / 1000],
    ['makespan', (f) => f.makespanMs / 1000],
    ['worker CPU', (f) => f.workerCpu],
    ['worker + Temporal + PG CPU', (f) => f.workerCpu + f.serverCpu],
  ];
  const of = (mode: Mode) => runs.filter((f) => f.mode === mode);
  // Pairs in the order they ran (round r's off and on), for the spread of the ratio.
  const pairs = Array.from({ length: rounds }, (_, r) => runs.slice(2 * r, 2 * r + 2));
  out('\n');
  out(
    table(
      ['figure', 'off median', 'on median', 'on/off at the median', 'per-pair ratios', 'min', 'max'],
      figures.map(([name, pick]) => {
        const off = median(of('off').map(pick));
        const on = median(of('on').map(pick));
        const ratios = pairs.map((p) => pick(p.find((f) => f.mode === 'on')!) / pick(p.find((f) => f.mode === 'off')!));
        return [
          name,
          fixed(off, 2),
          fixed(on, 2),
          fixed(on / off, 3),
          ratios.map((x) => fixed(x, 3)).join(' '),
          fixed(Math.min(...ratios), 3),
          fixed(Math.max(...ratios), 3),
        ];
      }),
    ),
  );
  out(
    `\n  the last "on" run's spans: ${[...spanNames]
      .sort((a, b) => b[1] - a[1])
      .map(([n, c]) => `${n} x${c}`)
      .join(', ')}\n`,
  );
  const cpuRatio =
    median(of('on').map((f) => f.workerCpu + f.serverCpu)) / median(of('off').map((f) => f.workerCpu + f.serverCpu));
  out(`\n  CPU on/off at the median: ${cpuRatio.toFixed(3)} (goal ≤ 1.03: ${cpuRatio <= 1.03 ? 'met' : 'NOT met'})\n`);
}
