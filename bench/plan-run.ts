// A whole plan run through the real stack: the planRun workflow (real bundle) launching one runPlanTest activity
// per test over a dependency graph, the real activities (replay in Chromium, database writes, trace upload) on
// one worker, PostgreSQL, a Temporal dev server. N recorded tests in a DAG of depth 5 (layers of N/5; every test
// of a layer after the first waits for 1-2 tests of the layer before, every 4th of them resumes from one), each
// a short replay on a tiny page served here (navigate + assert_visible), one plan, concurrency 20.
//
// What it prints per size:
// - makespan (runs.started_at -> finished_at) and the wall clock from the API's calls (createPlanRun +
//   startPlanRun) to the workflow's result, against the IDEAL: the same DAG list-scheduled on 20 machines with
//   the measured per-test durations (run_test_cases.started_at -> finished_at), earliest start first, ties in
//   topological order; plus the lower bounds (critical path, total work / 20). Orchestration overhead per test
//   = (makespan - ideal) x 20 / tests. A row's duration already holds some orchestration (marking the row started
//   and writing the result around the replay), so the same ideal is also computed from the replay's own measured
//   duration (the row's duration_ms).
// - the gap between a test's dependencies finishing and its own start (rows); in a saturated run that is mostly
//   queueing, so also the slot turnaround (a test's row finished -> the next waiting test's row started in the
//   freed slot) and where that time goes, from the run's history: the run's reaction to an activity's completion,
//   the next activity queued and started, the row marked started, the completion reaching the history.
// - the parent workflow's history (events, bytes) against Temporal's limits, and CPU seconds per process group.
//
//   node --import tsx bench/plan-run.ts
//   BENCH_TESTS=200          sizes, comma-separated (default 200,1000)
//   BENCH_CONCURRENCY=20     the browser pool's concurrency per worker and PlanRunInput.concurrency per worker (default 20)
//   BENCH_TIMEOUT_S=900      watchdog for the whole script (default 15 min)
//   BENCH_DUMP=/tmp/plan     also write every test's timeline (ms since epoch) to /tmp/plan.<size>.json
//   BENCH_STANDIN_FROM=5000  sizes from this many tests use a fast stand-in test body (default 5000)
//   BENCH_STANDIN_MS=300     how long the stand-in body takes (default 300 ms)
//   BENCH_MAX_HISTORY_EVENTS PlanRunInput.maxHistoryEvents (default: the workflow's own, 10,000)
//   BENCH_WORKERS=1,2        worker counts, comma-separated: each size runs once per count with that many worker
//                            PROCESSES (bench/plan-run-worker.ts) on the run's task queue; the run's concurrency
//                            is then count x BENCH_CONCURRENCY (each process brings its browser pool's slots), and
//                            the ideal is computed on that many machines. Unset: one worker in this process, as
//                            before (the figures of earlier rounds compare with that).
//
// The stand-in: for the largest sizes the worker's executeTest activity is replaced, here in the bench only, by a
// sleep that still reads its resume-from dependency's state blob and writes its own (as the real one does), so
// the orchestration (planRun, continue-as-new, the runPlanTest activities and their database writes) is the
// real one while the run fits in minutes on two cores.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, WorkflowExecutionDescription, WorkflowHandle } from '@temporalio/client';
import type { History } from '@temporalio/common/lib/proto-utils.js';
import { DefaultLogger, Runtime, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createDatabase, migrateToLatest, type DB } from '../src/db/database.js';
import { createTestPlan } from '../src/db/queries/test-plans.js';
import type { Step } from '../src/domain/steps.js';
import { silentLogger } from '../src/logger.js';
import { createPlanRun } from '../src/services/runs.js';
import { createFsBlobStore } from '../src/storage/fs.js';
import { createTemporalClientProvider, type TemporalClientProvider } from '../src/temporal/client.js';
import { startDevServer, type DevServer } from '../src/temporal/dev-server.js';
import { startPlanRun } from '../src/temporal/lifecycle.js';
import { bundleWorkflows, startWorker } from '../src/worker/worker.js';
import { loadPrograms } from '../src/programs.js';
import { workflowIds } from '../workflows/shared.js';
import type { PlanRunResult } from '../workflows/plan-run-contract.js';
import { freePort } from '../test/support/net.js';
import { createDatabaseIn, startPostgres, type PostgresCluster } from '../test/support/postgres.js';
import { descendants, processCpu } from '../test/support/processes.js';
import { insertRecordedTestCase } from '../test/support/recorded.js';
import {
  benchWorkerSettings,
  envInt,
  envInts,
  fixed,
  median,
  percentile,
  seedBenchApplication,
  table,
} from './support.js';
import { startBenchWorkers, type BenchWorkers } from './plan-run-processes.js';
import { standInExecuteTest } from './plan-run-standin.js';
import { buildPlanDag, depsOf, type BenchTest } from './plan-dag.js';

const sizes = envInts('BENCH_TESTS', [200, 1000], 5);
/** Per worker: its browser pool; the run's concurrency is this times the worker processes. */
const perWorkerConcurrency = envInt('BENCH_CONCURRENCY', 20);
const depth = 5;
const standInFrom = envInt('BENCH_STANDIN_FROM', 5000);
const standInMs = envInt('BENCH_STANDIN_MS', 300);
const maxHistoryEvents = process.env.BENCH_MAX_HISTORY_EVENTS ? envInt('BENCH_MAX_HISTORY_EVENTS', 10_000) : undefined;
const timeoutS = envInt('BENCH_TIMEOUT_S', 15 * 60);
/** 0: the worker in this process; N: N worker processes. */
const workerCounts = envInts('BENCH_WORKERS', [0]);
/** The worker's activity slots: ≥ 2 per browser slot (executeTest holds one for the whole replay). */
const activitySlots = Math.max(50, 2 * perWorkerConcurrency);
/** As the worker's DATABASE_POOL_SIZE defaults. */
const dbPoolSize = 10;

// ---- cleanup: everything started is stopped, also on the watchdog and on Ctrl-C

const closers: { name: string; close: () => Promise<unknown> }[] = [];
const onCleanup = (name: string, close: () => Promise<unknown>) => closers.push({ name, close });
let cleaning: Promise<void> | undefined;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    while (closers.length > 0) {
      const { name, close } = closers.pop()!;
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise(
        (resolve) =>
          (timer = setTimeout(
            () => resolve(process.stderr.write(`cleanup: ${name} did not stop within 30 s\n`)),
            30_000,
          )),
      );
      await Promise.race([
        close().catch((err: unknown) => process.stderr.write(`cleanup: ${name}: ${String(err)}\n`)),
        bound,
      ]);
      clearTimeout(timer);
    }
  })();
  return cleaning;
}
setTimeout(() => {
  process.stderr.write(`bench/plan-run: timed out after ${timeoutS} s, stopping everything\n`);
  void cleanup().finally(() => process.exit(1));
}, timeoutS * 1000).unref();
process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));
// Closing the browser under running replays can make Playwright throw from its own callbacks: while cleaning up
// that is expected and must not end the process before the servers are stopped; otherwise it is a failure.
const onStray = (err: unknown) => {
  if (cleaning)
    return void process.stderr.write(`during cleanup: ${err instanceof Error ? err.message : String(err)}\n`);
  process.stderr.write(`bench/plan-run: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  void cleanup().finally(() => process.exit(1));
};
process.on('uncaughtException', onStray);
process.on('unhandledRejection', onStray);

// ---- the page the tests replay on

/** `/start` is the environment URL; every test navigates to `/page?t=<name>` and sees the heading. */
async function startPageServer(): Promise<{ url: string; requests: () => number; server: Server }> {
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    const path = new URL(req.url ?? '/', 'http://bench.invalid').pathname;
    const body =
      path === '/start' ? '<h1>Start</h1>' : path === '/page' ? '<h1>Ready</h1><p>A tiny page.</p>' : undefined;
    res.writeHead(body ? 200 : 404, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(body ? `<!doctype html><html><head><title>Bench</title></head><body>${body}</body></html>` : 'not found');
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${port}`, requests: () => requests, server };
}

const stepsFor = (name: string): Step[] => [
  { action: 'navigate', value: `/page?t=${name}`, description: 'Open the page' },
  { action: 'assert_visible', locator: "getByRole('heading', { name: 'Ready' })", description: 'The page is ready' },
];

// ---- the graph: bench/plan-dag.ts

const buildDag = (n: number): BenchTest[] => buildPlanDag(n, depth);

// ---- scheduling

/**
 * List scheduling on `machines` identical machines: repeatedly start, among the tests whose dependencies are
 * all scheduled, the one that can start earliest (ties: topological order) on the machine free soonest.
 */
function idealMakespan(tests: BenchTest[], duration: Map<string, number>, machines: number): number {
  const free = Array.from({ length: machines }, () => 0);
  const finish = new Map<string, number>();
  const pending = [...tests]; // already in topological order (layer by layer)
  while (pending.length > 0) {
    const soonest = Math.min(...free);
    let best = -1;
    let bestStart = Infinity;
    for (let i = 0; i < pending.length; i++) {
      const deps = depsOf(pending[i]!);
      if (!deps.every((d) => finish.has(d))) continue;
      const start = Math.max(soonest, ...deps.map((d) => finish.get(d)!));
      if (start < bestStart) [best, bestStart] = [i, start];
    }
    const [test] = pending.splice(best, 1);
    const end = bestStart + duration.get(test!.name)!;
    free[free.indexOf(soonest)] = end;
    finish.set(test!.name, end);
  }
  return Math.max(...finish.values());
}

function criticalPath(tests: BenchTest[], duration: Map<string, number>): number {
  const longest = new Map<string, number>();
  for (const t of tests)
    longest.set(t.name, Math.max(0, ...depsOf(t).map((d) => longest.get(d)!)) + duration.get(t.name)!);
  return Math.max(...longest.values());
}

// ---- histories

type HistoryEvent = NonNullable<History['events']>[number];

function eventMs(e: HistoryEvent): number {
  const ts = e.eventTime;
  if (!ts) return NaN;
  const seconds = ts.seconds;
  const s = typeof seconds === 'number' ? seconds : seconds ? seconds.toNumber() : 0;
  return s * 1000 + (ts.nanos ?? 0) / 1e6;
}

const idOf = (id: unknown): string => String(id);

interface ParentFigures {
  events: number;
  /** Per test (by test case id): its runPlanTests activity (its batch's) scheduled, started by a worker, and its completion written. */
  initiated: Map<string, number>;
  /** Tests per runPlanTests activity, in order; the first test of each. */
  batchSizes: number[];
  firstInBatch: Set<string>;
  activityStarted: Map<string, number>;
  activityCompleted: Map<string, number>;
  /** When the run's graph (loadRunGraph's last page) reached the workflow (the first launches can happen from then on). */
  planLoaded: number;
  workflowTasks: number;
  /** Per workflow task: from the first event it answers to its completion; and scheduled -> started. */
  reaction: number[];
  wftQueue: number[];
  wftRun: number[];
  launchesPerTask: number[];
}

function parentFigures(history: History): ParentFigures {
  const events = history.events ?? [];
  const testsOfEvent = new Map<string, string[]>(); // runPlanTests' scheduled event id -> its tests
  const f: ParentFigures = {
    events: events.length,
    initiated: new Map(),
    activityStarted: new Map(),
    activityCompleted: new Map(),
    batchSizes: [],
    firstInBatch: new Set(),
    planLoaded: NaN,
    workflowTasks: 0,
    reaction: [],
    wftQueue: [],
    wftRun: [],
    launchesPerTask: [],
  };
  const activityNames = new Map<string, string>();
  let firstPending = NaN; // first event since the last completed workflow task that a new task answers to
  let scheduledAt = NaN;
  let startedAt = NaN;
  for (const e of events) {
    const at = eventMs(e);
    if (e.workflowTaskScheduledEventAttributes) {
      scheduledAt = at;
      if (Number.isNaN(firstPending)) firstPending = at;
    } else if (e.workflowTaskStartedEventAttributes) startedAt = at;
    else if (e.workflowTaskCompletedEventAttributes) {
      f.workflowTasks++;
      f.reaction.push(at - firstPending);
      f.wftQueue.push(startedAt - scheduledAt);
      f.wftRun.push(at - startedAt);
      firstPending = NaN;
    } else if (e.activityTaskScheduledEventAttributes?.activityType?.name === 'runPlanTests') {
      const input = JSON.parse(
        Buffer.from(e.activityTaskScheduledEventAttributes.input?.payloads?.[0]?.data ?? []).toString('utf8'),
      ) as { tests: { testCaseId: string }[] };
      const batch = input.tests.map((t) => t.testCaseId);
      testsOfEvent.set(idOf(e.eventId), batch);
      f.batchSizes.push(batch.length);
      f.firstInBatch.add(batch[0]!);
      for (const id of batch) f.initiated.set(id, at);
      // Commands of one task follow its completion: count them against the task just completed.
      while (f.launchesPerTask.length < f.workflowTasks) f.launchesPerTask.push(0);
      f.launchesPerTask[f.workflowTasks - 1]! += 1;
    } else {
      for (const id of testsOfEvent.get(idOf(e.activityTaskStartedEventAttributes?.scheduledEventId)) ?? [])
        f.activityStarted.set(id, at);
      for (const id of testsOfEvent.get(idOf(e.activityTaskCompletedEventAttributes?.scheduledEventId)) ?? [])
        f.activityCompleted.set(id, at);
      if (e.activityTaskScheduledEventAttributes)
        activityNames.set(idOf(e.eventId), e.activityTaskScheduledEventAttributes.activityType?.name ?? '?');
      // The first run's last graph page (a continued run reads the graph again, with tests already done).
      if (
        e.activityTaskCompletedEventAttributes &&
        f.initiated.size === 0 &&
        activityNames.get(idOf(e.activityTaskCompletedEventAttributes.scheduledEventId)) === 'loadRunGraph'
      )
        f.planLoaded = at;
      // Anything else the workflow reacts to (an activity completed) wakes a task.
      const isCommandEcho =
        e.activityTaskScheduledEventAttributes ||
        e.activityTaskStartedEventAttributes ||
        e.markerRecordedEventAttributes ||
        e.workflowExecutionCompletedEventAttributes;
      if (!isCommandEcho && Number.isNaN(firstPending)) firstPending = at;
    }
  }
  return f;
}

interface ChainRun {
  history: History;
  events: number;
  bytes: number;
  /** Bytes of the plan this run read into its history: loadRunGraph's pages (loadRunPlan's, before the graph). */
  planBytes: number;
}

/** What a run of the chain read of the plan: the results of its graph (or, before, plan) activities. */
function planBytesOf(history: History): number {
  const names = new Map<string, string>();
  let bytes = 0;
  for (const e of history.events ?? []) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) names.set(idOf(e.eventId), scheduled.activityType?.name ?? '?');
    const completed = e.activityTaskCompletedEventAttributes;
    const name = completed && names.get(idOf(completed.scheduledEventId));
    if (name === 'loadRunGraph' || name === 'loadRunPlan')
      bytes += (completed!.result?.payloads ?? []).reduce((sum, p) => sum + (p.data?.length ?? 0), 0);
  }
  return bytes;
}

/** Every run of a workflow's continue-as-new chain, first to last (each started event names its predecessor). */
async function chainHistories(client: Client, workflowId: string): Promise<ChainRun[]> {
  const runs: ChainRun[] = [];
  let runId: string | undefined = (await client.workflow.getHandle(workflowId).describe()).runId;
  while (runId) {
    const handle: WorkflowHandle = client.workflow.getHandle(workflowId, runId);
    const [history, description]: [History, WorkflowExecutionDescription] = await Promise.all([
      handle.fetchHistory(),
      handle.describe(),
    ]);
    runs.unshift({
      history,
      events: history.events?.length ?? 0,
      bytes: description.historySize ?? NaN,
      planBytes: planBytesOf(history),
    });
    runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  return runs;
}

// ---- CPU time per process group (this process, Temporal, PostgreSQL, Chromium)

/** `workers`: identity -> pid of each worker process; their node (and esbuild) time is theirs, per identity too. */
function cpuByGroup(workers = new Map<string, number>()): Record<string, number> {
  const groups: Record<string, number> = { node: 0, workers: 0, temporal: 0, postgres: 0, chromium: 0, other: 0 };
  const workerOf = new Map<number, string>();
  for (const [identity, root] of workers) for (const pid of [root, ...descendants(root)]) workerOf.set(pid, identity);
  for (const pid of [process.pid, ...descendants(process.pid)]) {
    const cpu = processCpu(pid);
    if (!cpu) continue;
    const comm = cpu.comm;
    const own = cpu.own;
    // The bench's own reaped children are counted one by one above; a child's reaped ones only through it.
    const reaped = pid === process.pid ? 0 : cpu.reaped;
    const identity = workerOf.get(pid);
    const chromium = /chrom|headless/i.test(comm);
    const group =
      pid === process.pid
        ? 'node'
        : identity && !chromium
          ? 'workers'
          : /^temporal/.test(comm)
            ? 'temporal'
            : /^(postgres|runuser)/.test(comm)
              ? 'postgres'
              : chromium
                ? 'chromium'
                : 'other';
    groups[group]! += own + reaped;
    if (identity && !chromium) groups[identity] = (groups[identity] ?? 0) + own + reaped;
  }
  return groups;
}

// ---- one run

interface SizeFigures {
  tests: number;
  /** 0: the worker in this process; else that many worker processes. */
  workers: number;
  /** The run's concurrency (and the ideal's machines). */
  slots: number;
  /** Per worker process: how many executeTest calls it ran. */
  executedBy: Map<string, number>;
  layers: number[];
  waitForEdges: number;
  resumeEdges: number;
  passed: number;
  status: string;
  apiMs: number;
  wallMs: number;
  makespanMs: number;
  idealMs: number;
  /** The ideal again, with the replay's own measured duration (the row's duration_ms) as each test's duration. */
  idealExecMs: number;
  criticalPathMs: number;
  workBoundMs: number;
  durations: number[];
  replayMs: number[];
  depGaps: number[];
  freeSlotDepGaps: number[];
  dispatch: number[];
  turnaround: number[];
  launch: number[];
  completion: number[];
  stages: Record<string, number[]>;
  parent: ParentFigures;
  historyLength: number;
  historyBytes: number;
  standIn: boolean;
  /** The parent's runs (continue-as-new chain): events and bytes of each, and the plan's bytes in it. */
  chain: { events: number; bytes: number; planBytes: number }[];
  continuations: number;
  cpu: Record<string, number>;
  pageRequests: number;
}

interface Shared {
  clusterUrl: string;
  temporalAddress: string;
  bundle: WorkflowBundleWithSourceMap;
  pageUrl: string;
  pageRequests: () => number;
  blobDir: string;
}

async function runSize(shared: Shared, n: number, workers: number): Promise<SizeFigures> {
  const key = `${n} x ${workers}`;
  const concurrency = Math.max(1, workers) * perWorkerConcurrency;
  const dbUrl = await createDatabaseIn(shared.clusterUrl, `bench_${n}_${randomBytes(4).toString('hex')}`);
  const db: DB = createDatabase({ kind: 'postgres', url: dbUrl, maxConnections: dbPoolSize });
  const closeDb = () => db.destroy();
  onCleanup(`database (${key})`, closeDb);
  await migrateToLatest(db);

  // The project: one web application whose environment is the bench's page, N recorded tests, one plan.
  const { tenant, appId } = await seedBenchApplication(db, `Plan run ${n}`, `${shared.pageUrl}/start`);
  const dag = buildDag(n);
  const ids = new Map<string, string>();
  for (const t of dag) {
    const id = await insertRecordedTestCase(db, {
      projectId: tenant.projectId,
      applicationId: appId,
      name: t.name,
      steps: stepsFor(t.name),
      resumeFrom: t.resumeFrom && ids.get(t.resumeFrom),
      waitFor: t.waitFor.map((d) => ids.get(d)!),
    });
    ids.set(t.name, id);
  }
  const nameOf = new Map([...ids].map(([name, id]) => [id, name]));
  const planShortId = await createTestPlan(db, tenant.projectId, {
    name: `All ${n}`,
    isDefault: true,
    testCaseIds: [...ids.values()],
  });

  // The worker, as `proctor worker` composes it: real bundle, real activities, one browser pool; in this process, or
  // `workers` processes of their own.
  const taskQueue = `bench-${randomBytes(4).toString('hex')}`;
  const standIn = n >= standInFrom;
  let processes: BenchWorkers | undefined;
  if (workers === 0) {
    const proctorWorker = await startWorker(
      {
        address: shared.temporalAddress,
        namespace: 'default',
        taskQueue,
        workflowBundle: shared.bundle,
        maxConcurrentActivityTaskExecutions: activitySlots,
        substitute: standIn
          ? (activities, deps) => ({ ...activities, executeTest: standInExecuteTest(deps.blobs, standInMs) })
          : undefined,
      },
      benchWorkerSettings(perWorkerConcurrency),
      {
        db,
        blobs: createFsBlobStore({
          dir: shared.blobDir,
          secret: randomBytes(32).toString('hex'),
          publicUrl: 'http://127.0.0.1:3000',
        }),
        logger: silentLogger,
      },
    );
    proctorWorker.running.catch(() => undefined); // a worker that dies shows as a run that never ends; stop() rethrows
    onCleanup(`worker (${key})`, () => proctorWorker.stop());
    // Warm Chromium (the first launch is not the run's cost): one context, closed at once.
    if (!standIn)
      await proctorWorker.deps.browsers.withContext(
        {},
        async ({ page }) => void (await page.goto(`${shared.pageUrl}/start`)),
      );
  } else {
    const started = startBenchWorkers(workers, {
      databaseUrl: dbUrl,
      temporalAddress: shared.temporalAddress,
      taskQueue,
      blobDir: shared.blobDir,
      concurrency: perWorkerConcurrency,
      activitySlots,
      dbPoolSize,
      standInMs: standIn ? standInMs : undefined,
      warmUrl: standIn ? undefined : `${shared.pageUrl}/start`,
    });
    onCleanup(`worker (${key})`, async () => (await started).stop());
    processes = await started;
  }
  const temporal: TemporalClientProvider = createTemporalClientProvider({
    address: shared.temporalAddress,
    namespace: 'default',
    taskQueue,
  });
  onCleanup(`temporal client (${key})`, () => temporal.close());
  const client: Client = await temporal.get();

  // What `POST /v1/run` does: write the run, start its workflow.
  const requestsBefore = shared.pageRequests();
  const cpuBefore = cpuByGroup(processes?.pids);
  const t0 = Date.now();
  const run = await createPlanRun(
    { db },
    { projectId: tenant.projectId, testPlanShortId: planShortId, meta: { trigger: 'API', actor: 'bench' } },
  );
  await startPlanRun(temporal, {
    runId: run.id,
    runShortId: run.shortId,
    projectId: tenant.projectId,
    concurrency,
    heal: true,
    maxHistoryEvents,
  });
  const apiMs = Date.now() - t0;
  const handle = client.workflow.getHandle(workflowIds.planRun(run.shortId));
  const result = (await handle.result()) as PlanRunResult;
  const wallMs = Date.now() - t0;
  const cpuAfter = cpuByGroup(processes?.pids);
  // The processes are done: their counts of executeTest calls say how the run was shared.
  const executedBy = processes ? await processes.stop() : new Map<string, number>();

  const runRow = await db.selectFrom('runs').selectAll().where('id', '=', run.id).executeTakeFirstOrThrow();
  const rows = await db.selectFrom('run_test_cases').selectAll().where('run_id', '=', run.id).execute();
  const byName = new Map(rows.map((r) => [nameOf.get(r.test_case_id!)!, r]));
  const start = (name: string) => byName.get(name)!.started_at?.getTime() ?? NaN;
  const end = (name: string) => byName.get(name)!.finished_at?.getTime() ?? NaN;
  const duration = new Map(dag.map((t) => [t.name, end(t.name) - start(t.name)]));
  if ([...duration.values()].some((d) => !Number.isFinite(d)))
    throw new Error(`some tests have no start/finish time: ${JSON.stringify(result.counts)}`);
  const makespanMs = runRow.finished_at!.getTime() - runRow.started_at!.getTime();

  // Histories: the run chain's (size, launches, reactions, each test's activity).
  const chain = await chainHistories(client, handle.workflowId);
  const parent = parentFigures({ events: chain.flatMap((r) => r.history.events ?? []) });
  const initiated = (name: string) => parent.initiated.get(ids.get(name)!)!;
  const seenDone = (name: string) => parent.activityCompleted.get(ids.get(name)!)!;

  // Gap between the last dependency finishing and the test's start (rows); and the same only for tests that,
  // when the parent saw their last dependency done, had a slot of their own: fewer than `concurrency` tests
  // running or already waiting for a slot then (no queueing: orchestration only).
  const readyAt = new Map(dag.map((t) => [t.name, Math.max(parent.planLoaded, ...depsOf(t).map(seenDone))]));
  const depGaps: number[] = [];
  const freeSlotDepGaps: number[] = [];
  for (const t of dag) {
    const deps = depsOf(t);
    if (deps.length === 0) continue;
    const gap = start(t.name) - Math.max(...deps.map(end));
    depGaps.push(gap);
    const at = readyAt.get(t.name)!;
    const running = dag.filter((o) => initiated(o.name) <= at && seenDone(o.name) > at).length;
    const waiting = dag.filter((o) => o.name !== t.name && readyAt.get(o.name)! < at && initiated(o.name) > at).length;
    if (running + waiting < concurrency) freeSlotDepGaps.push(gap);
  }

  // The parent's dispatch latency: from the moment a test could start (dependencies seen done and a slot free,
  // slots handed out first-freed first) to the run scheduling its activity.
  // When the test was already waiting as the slot came free, the slot's turnaround: the previous test's row
  // finished -> this test's row started, the browser slot idle in between (the cost per test when saturated).
  const slots: { free: number; rowEnd: number }[] = Array.from({ length: concurrency }, () => ({
    free: parent.planLoaded,
    rowEnd: NaN,
  }));
  const dispatch: number[] = [];
  const turnaround: number[] = [];
  const launchOrder = [...dag].sort((a, b) => initiated(a.name) - initiated(b.name));
  const completions = [...dag].sort((a, b) => seenDone(a.name) - seenDone(b.name));
  let c = 0;
  for (const t of launchOrder) {
    const at = initiated(t.name);
    while (c < completions.length && seenDone(completions[c]!.name) <= at) {
      const done = completions[c++]!.name;
      slots.push({ free: seenDone(done), rowEnd: end(done) });
    }
    slots.sort((a, b) => a.free - b.free);
    const slot = slots.shift() ?? { free: at, rowEnd: NaN };
    const ready = readyAt.get(t.name)!;
    dispatch.push(at - Math.max(slot.free, ready));
    if (ready <= slot.free && Number.isFinite(slot.rowEnd)) turnaround.push(start(t.name) - slot.rowEnd);
  }

  // Where a test's time goes, from the run's history and its row: the activity waiting for a worker, the worker
  // marking the row started, the replay and the result written, the completion reaching the history. For a test in
  // a batch the activity's times are the batch's: only the first test of a batch is counted in the hops around it.
  const stages: Record<string, number[]> = {
    'runPlanTests queued (scheduled -> started)': [],
    'started -> row started (markTestStarted)': [],
    'row started -> finished (replay, record)': [],
    'row finished -> activity completed': [],
  };
  for (const t of dag) {
    const id = ids.get(t.name)!;
    const activityStarted = parent.activityStarted.get(id);
    if (activityStarted === undefined || !parent.firstInBatch.has(id)) continue;
    const push = (key: string, ms: number) => stages[key]!.push(ms);
    push('runPlanTests queued (scheduled -> started)', activityStarted - initiated(t.name));
    push('started -> row started (markTestStarted)', start(t.name) - activityStarted);
    push('row started -> finished (replay, record)', end(t.name) - start(t.name));
    push('row finished -> activity completed', seenDone(t.name) - end(t.name));
  }

  if (process.env.BENCH_DUMP) {
    const timeline = dag.map((t) => ({
      name: t.name,
      deps: depsOf(t),
      initiated: initiated(t.name),
      rowStart: start(t.name),
      rowEnd: end(t.name),
      seenDone: seenDone(t.name),
      replayMs: byName.get(t.name)!.duration_ms,
    }));
    writeFileSync(
      `${process.env.BENCH_DUMP}.${n}.json`,
      JSON.stringify(
        { runStarted: runRow.started_at, runFinished: runRow.finished_at, planLoaded: parent.planLoaded, timeline },
        null,
        1,
      ),
    );
  }

  const figures: SizeFigures = {
    tests: n,
    workers,
    slots: concurrency,
    executedBy,
    layers: Array.from({ length: depth }, (_, k) => dag.filter((t) => t.layer === k).length),
    waitForEdges: dag.reduce((s, t) => s + t.waitFor.length, 0),
    resumeEdges: dag.filter((t) => t.resumeFrom).length,
    passed: rows.filter((r) => r.result === 'PASSED').length,
    status: `${result.status} ${runRow.result ?? ''}`.trim(),
    apiMs,
    wallMs,
    makespanMs,
    idealMs: idealMakespan(dag, duration, concurrency),
    idealExecMs: idealMakespan(
      dag,
      new Map(
        dag.map((t) => {
          const replay = byName.get(t.name)!.duration_ms;
          return [t.name, replay ?? duration.get(t.name)!];
        }),
      ),
      concurrency,
    ),
    criticalPathMs: criticalPath(dag, duration),
    workBoundMs: [...duration.values()].reduce((a, b) => a + b, 0) / concurrency,
    durations: [...duration.values()],
    replayMs: rows.flatMap((r) => (r.duration_ms === null ? [] : [r.duration_ms])),
    depGaps,
    freeSlotDepGaps,
    dispatch,
    turnaround,
    launch: dag.map((t) => start(t.name) - initiated(t.name)),
    completion: dag.map((t) => seenDone(t.name) - end(t.name)),
    stages,
    parent,
    historyLength: chain.reduce((sum, r) => sum + r.events, 0),
    historyBytes: chain.reduce((sum, r) => sum + r.bytes, 0),
    standIn,
    chain: chain.map(({ events, bytes, planBytes }) => ({ events, bytes, planBytes })),
    continuations: result.continuations,
    cpu: Object.fromEntries(Object.entries(cpuAfter).map(([k, v]) => [k, v - (cpuBefore[k] ?? 0)])),
    pageRequests: shared.pageRequests() - requestsBefore,
  };

  // This size's pieces stop here; the servers are shared.
  for (const name of [`temporal client (${key})`, `worker (${key})`, `database (${key})`]) {
    const i = closers.findIndex((x) => x.name === name);
    if (i >= 0) await closers.splice(i, 1)[0]!.close();
  }
  return figures;
}

// ---- output

const ms = (n: number) => fixed(n, 0);
const sec = (n: number) => fixed(n / 1000, 1);
const dist = (values: number[]) => [
  ms(median(values)),
  ms(percentile(values, 95)),
  ms(Math.max(...values)),
  values.length,
];

const label = (f: SizeFigures) => (f.workers ? `${f.tests}/${f.workers}w` : String(f.tests));

function report(all: SizeFigures[]): void {
  const out = (s: string) => process.stdout.write(s);
  out(
    `\nplan run: DAG of depth ${depth}, per worker: browser pool ${perWorkerConcurrency}, ${activitySlots} activity slots, database pool ${dbPoolSize}; run concurrency = pool x workers; ${cpus().length} cores\n`,
  );
  out(
    '  rows are labelled tests/workers: "1000/2w" = 1,000 tests on 2 worker processes; "1000" = the worker in the bench\'s process\n',
  );
  for (const f of all) {
    const body = f.standIn ? `STAND-IN test body (${standInMs} ms sleep, no browser)` : 'real replays in Chromium';
    out(
      `  ${label(f)}: ${f.tests} tests, concurrency ${f.slots}; layers ${f.layers.join('/')}, ${f.waitForEdges} wait-for + ${f.resumeEdges} resume-from edges; ${body}; ${f.status}, ${f.passed} passed; ${f.pageRequests} page requests\n`,
    );
  }

  out(
    "\nmakespan against the ideal schedule (same DAG, measured per-test durations, as many machines as the run's concurrency)\n\n",
  );
  out(
    table(
      [
        'tests',
        'machines',
        'API call ms',
        'wall s',
        'makespan s',
        'ideal s',
        'crit. path s',
        'work/machines s',
        'makespan/ideal',
        'overhead ms/test',
        'tests/s',
        'ideal (executeTest) s',
        'makespan/that',
      ],
      all.map((f) => [
        label(f),
        f.slots,
        ms(f.apiMs),
        sec(f.wallMs),
        sec(f.makespanMs),
        sec(f.idealMs),
        sec(f.criticalPathMs),
        sec(f.workBoundMs),
        fixed(f.makespanMs / f.idealMs, 2),
        ms(((f.makespanMs - f.idealMs) * f.slots) / f.tests),
        fixed(f.tests / (f.makespanMs / 1000), 2),
        sec(f.idealExecMs),
        fixed(f.makespanMs / f.idealExecMs, 2),
      ]),
    ),
  );
  for (const f of all) {
    const ratio = f.makespanMs / f.idealMs;
    out(`  ${label(f)}: makespan/ideal ${ratio.toFixed(2)} (goal ≤ 1.2: ${ratio <= 1.2 ? 'met' : 'NOT met'})\n`);
  }

  out('\nper test (ms): median, p95, max, count\n\n');
  const rowsOf = (what: string, pick: (f: SizeFigures) => number[]) =>
    all.map((f) => [`${what} (${label(f)})`, ...dist(pick(f))]);
  out(
    table(
      ['', 'median', 'p95', 'max', 'n'],
      [
        ...rowsOf('test row started -> finished', (f) => f.durations),
        ...rowsOf('  replay alone (duration_ms)', (f) => f.replayMs),
        ...rowsOf('deps finished -> test started', (f) => f.depGaps),
        ...rowsOf('  the same, a slot was free at once', (f) => f.freeSlotDepGaps),
        ...rowsOf('slot turnaround (row finished -> next row started)', (f) => f.turnaround),
        ...rowsOf('run dispatch (ready+slot -> activity scheduled)', (f) => f.dispatch),
        ...rowsOf('activity scheduled -> row started', (f) => f.launch),
        ...rowsOf('row finished -> run sees activity done', (f) => f.completion),
      ],
    ),
  );

  out("\nwhere a test's time goes, from the run's history and rows (ms): median, p95, max\n\n");
  const keys = Object.keys(all[0]!.stages);
  out(
    table(
      ['stage', ...all.flatMap((f) => [`med (${label(f)})`, `p95 (${label(f)})`, `max (${label(f)})`])],
      keys.map((k) => [k, ...all.flatMap((f) => dist(f.stages[k]!).slice(0, 3))]),
    ),
  );

  out('\nthe parent workflow (run:<shortId>), all runs of its chain together\n\n');
  out(
    table(
      [
        'tests',
        'history events',
        'history bytes',
        'events/test',
        'bytes/test',
        'workflow tasks',
        'activities',
        'tests/activity mean',
        'max',
        'launches/task',
        'reaction med ms',
        'reaction p95 ms',
        'task queued med ms',
        'task run med ms',
      ],
      all.map((f) => {
        const perTest = f.parent.events / f.tests;
        const bytesPerTest = f.historyBytes / f.tests;
        return [
          label(f),
          f.parent.events,
          f.historyBytes,
          fixed(perTest, 1),
          ms(bytesPerTest),
          f.parent.workflowTasks,
          f.parent.batchSizes.length,
          fixed(f.tests / Math.max(1, f.parent.batchSizes.length), 2),
          Math.max(0, ...f.parent.batchSizes),
          fixed(median(f.parent.launchesPerTask.filter((x) => x > 0)), 1),
          ms(median(f.parent.reaction)),
          ms(percentile(f.parent.reaction, 95)),
          ms(median(f.parent.wftQueue)),
          ms(median(f.parent.wftRun)),
        ];
      }),
    ),
  );
  for (const f of all) {
    if (f.historyLength !== f.parent.events)
      out(`  note: the runs' histories hold ${f.historyLength} events, fetchHistory ${f.parent.events}\n`);
  }

  out(
    "\nthe parent's continue-as-new chain: the largest single history against Temporal's limits (51,200 events, 50 MB)\n\n",
  );
  out(
    table(
      [
        'tests',
        'test body',
        'runs',
        'continue-as-new',
        'largest run events',
        'largest run bytes',
        '% of 51,200 events',
        '% of 50 MB',
        'events per run',
        'total events',
        'total bytes',
        'plan bytes per run',
        'plan bytes/test',
      ],
      all.map((f) => {
        const events = Math.max(...f.chain.map((r) => r.events));
        const bytes = Math.max(...f.chain.map((r) => r.bytes));
        return [
          label(f),
          f.standIn ? `stand-in ${standInMs} ms` : 'replay',
          f.chain.length,
          f.continuations,
          events,
          bytes,
          fixed((events / 51_200) * 100, 1),
          fixed((bytes / (50 * 1024 * 1024)) * 100, 2),
          f.chain.map((r) => r.events).join(' / '),
          f.historyLength,
          f.historyBytes,
          f.chain.map((r) => r.planBytes).join(' / '),
          fixed(f.chain.reduce((sum, r) => sum + r.planBytes, 0) / f.chain.length / f.tests, 1),
        ];
      }),
    ),
  );

  out(`\nCPU seconds during the run (${cpus().length} cores; available = cores x wall)\n\n`);
  const groups = ['node', 'workers', 'temporal', 'postgres', 'chromium', 'other'];
  out(
    table(
      ['tests', ...groups.map((g) => `${g} s`), 'total s', 'available s', 'busy %', 'CPU ms/test'],
      all.map((f) => {
        const total = groups.reduce((s, g) => s + (f.cpu[g] ?? 0), 0);
        const available = (cpus().length * f.wallMs) / 1000;
        return [
          label(f),
          ...groups.map((g) => fixed(f.cpu[g] ?? 0, 1)),
          fixed(total, 1),
          fixed(available, 1),
          fixed((total / available) * 100, 0),
          ms((total * 1000) / f.tests),
        ];
      }),
    ),
  );
  out(
    '  node = this process: the page server and the bench, and with no worker processes the worker (workflows, activities, Playwright client, egress proxies).\n',
  );
  out('  workers = the worker processes (node and its esbuild), Chromium apart.\n');
  if (all.some((f) => f.workers > 0)) throughput(all, groups);
}

/** Per size, one row per worker count: throughput, its scaling against the first count, how the run was shared. */
function throughput(all: SizeFigures[], groups: string[]): void {
  const out = (s: string) => process.stdout.write(s);
  out(
    '\nthroughput per worker count (run concurrency = workers x browser pool; speedup against the first count of the same size)\n\n',
  );
  out(
    table(
      [
        'tests',
        'workers',
        'concurrency',
        'makespan s',
        'ideal s',
        'makespan/ideal',
        'tests/s',
        'speedup',
        'executeTest per worker',
        'CPU s per worker',
        ...groups.map((g) => `${g} s`),
        'busy %',
      ],
      all.map((f) => {
        const first = all.find((o) => o.tests === f.tests)!;
        const rate = f.tests / (f.makespanMs / 1000);
        const firstRate = first.tests / (first.makespanMs / 1000);
        const identities = [...f.executedBy.keys()].sort();
        const total = groups.reduce((s, g) => s + (f.cpu[g] ?? 0), 0);
        return [
          f.tests,
          f.workers || 'in-process',
          f.slots,
          sec(f.makespanMs),
          sec(f.idealMs),
          fixed(f.makespanMs / f.idealMs, 2),
          fixed(rate, 2),
          fixed(rate / firstRate, 2),
          identities.map((id) => f.executedBy.get(id)).join(' / ') || '-',
          identities.map((id) => fixed(f.cpu[id] ?? 0, 1)).join(' / ') || '-',
          ...groups.map((g) => fixed(f.cpu[g] ?? 0, 1)),
          fixed((total / ((cpus().length * f.wallMs) / 1000)) * 100, 0),
        ];
      }),
    ),
  );
}

// ---- main

// Worker state changes are logged at INFO; only problems matter here. The bench owns SIGINT (see cleanup).
Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });

let exitCode = 0;
try {
  const tools = loadPrograms();
  if (!tools.postgresBin) throw new Error('PostgreSQL is not installed: run `npm run setup:test`');
  if (!tools.temporal) throw new Error('The Temporal CLI is not installed: run `npm run setup:test`');
  if (!tools.chromium) throw new Error('Chromium not found: run `npm run setup`');

  const page = await startPageServer();
  onCleanup('page server', () => new Promise((resolve) => page.server.close(resolve)));
  const blobDir = mkdtempSync(join(tmpdir(), 'proctor-bench-blobs-'));
  onCleanup('blob dir', async () => rmSync(blobDir, { recursive: true, force: true }));
  const [postgres, temporal, bundle] = await Promise.allSettled([
    startPostgres(tools.postgresBin),
    startDevServer({ executable: tools.temporal }),
    bundleWorkflows(),
  ]);
  if (postgres.status === 'fulfilled') onCleanup('postgres', () => (postgres.value as PostgresCluster).stop());
  if (temporal.status === 'fulfilled') onCleanup('temporal dev server', () => (temporal.value as DevServer).stop());
  for (const r of [postgres, temporal, bundle]) if (r.status === 'rejected') throw r.reason;
  const shared: Shared = {
    clusterUrl: (postgres as PromiseFulfilledResult<PostgresCluster>).value.url,
    temporalAddress: (temporal as PromiseFulfilledResult<DevServer>).value.address,
    bundle: (bundle as PromiseFulfilledResult<WorkflowBundleWithSourceMap>).value,
    pageUrl: page.url,
    pageRequests: page.requests,
    blobDir,
  };

  const results: SizeFigures[] = [];
  for (const n of sizes) {
    for (const workers of workerCounts) {
      const started = Date.now();
      results.push(await runSize(shared, n, workers));
      process.stderr.write(
        `bench/plan-run: ${n} tests on ${workers || 'the in-process'} worker(s) done in ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
      );
    }
  }
  report(results);
} catch (err) {
  process.stderr.write(`bench/plan-run: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  exitCode = 1;
} finally {
  await cleanup();
}
process.exit(exitCode);
