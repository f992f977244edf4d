// Proctor's Prometheus metrics, defined once for the whole process. Services, activities and adapters record at the
// place the business event happens (a run's row ends, a mail is stored); the composition roots serve the registry
// on /metrics (src/cli/metrics.ts). docs/operations.md lists every metric.
//
// Every label takes a value from a closed set, or one the operator configured (the model, the task queue): never
// an id, a project or a free text a client sent, which would give Prometheus a series per value and keep it forever.
// test/unit/metrics.test.ts checks the names and the labels.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export const registry = new Registry();

export type RunResult = 'passed' | 'failed' | 'skipped' | 'error' | 'cancelled' | 'none';
export type TestResult = 'passed' | 'failed' | 'error' | 'skipped' | 'cancelled';

export const runsStarted = new Counter({
  name: 'proctor_runs_started_total',
  help: 'Runs whose workflow began (counted by the worker, once per run, whatever started it)',
  registers: [registry],
});

export const runsFinished = new Counter({
  name: 'proctor_runs_finished_total',
  help: 'Runs that ended, by result (error and cancelled: the run did not complete)',
  labelNames: ['result'] as const,
  registers: [registry],
});

export const testsStarted = new Counter({
  name: 'proctor_tests_started_total',
  help: 'Tests of runs that started (a retried activity of the same test counts once)',
  registers: [registry],
});

export const testsFinished = new Counter({
  name: 'proctor_tests_finished_total',
  help: 'Tests of runs that ended, by result',
  labelNames: ['result'] as const,
  registers: [registry],
});

export const testDuration = new Histogram({
  name: 'proctor_test_duration_seconds',
  help: 'How long a test of a run took in the browser, by result',
  labelNames: ['result'] as const,
  buckets: [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600],
  registers: [registry],
});

export const stepDuration = new Histogram({
  name: 'proctor_step_duration_seconds',
  help: 'How long one step took to perform (replay and burn-in), by action and outcome',
  labelNames: ['action', 'outcome'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
  registers: [registry],
});

export const burnInCallsPerStep = new Histogram({
  name: 'proctor_burn_in_llm_calls_per_step',
  help: 'Model calls a burn-in made per step it recorded (1: every call became a step), by result',
  labelNames: ['result'] as const,
  buckets: [1, 1.25, 1.5, 2, 3, 5, 10],
  registers: [registry],
});

export const llmCalls = new Counter({
  name: 'proctor_llm_calls_total',
  help: 'Model calls, by role and model',
  labelNames: ['role', 'model'] as const,
  registers: [registry],
});

export const llmTokens = new Counter({
  name: 'proctor_llm_tokens_total',
  help: 'Tokens of model calls, by role, model and kind (prompt, completion; cached: of the prompt, served from cache)',
  labelNames: ['role', 'model', 'kind'] as const,
  registers: [registry],
});

export const llmCost = new Counter({
  name: 'proctor_llm_cost_usd_total',
  help: 'Estimated cost of model calls in US dollars, by role and model (calls of a model with no price: none)',
  labelNames: ['role', 'model'] as const,
  registers: [registry],
});

export const inboxMails = new Counter({
  name: 'proctor_inbox_mails_total',
  help: "Mails to Proctor's inbox, by outcome (stored: one per accepted recipient)",
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const webhookDeliveries = new Counter({
  name: 'proctor_webhook_deliveries_total',
  help: 'Webhook deliveries from Git providers, by provider and outcome',
  labelNames: ['provider', 'outcome'] as const,
  registers: [registry],
});

/** What a browser pool reports; every pool of the process counts (one per worker). */
export interface BrowserContextsSource {
  active: number;
  queued: number;
  concurrency: number;
}
const browserPools = new Set<() => BrowserContextsSource>();
const sumPools = (key: keyof BrowserContextsSource) => [...browserPools].reduce((n, stats) => n + stats()[key], 0);

new Gauge({
  name: 'proctor_browser_contexts_in_use',
  help: 'Browser contexts (one per test or burn-in) open now',
  registers: [registry],
  collect() {
    this.set(sumPools('active'));
  },
});
new Gauge({
  name: 'proctor_browser_contexts_waiting',
  help: 'Jobs waiting for a browser context',
  registers: [registry],
  collect() {
    this.set(sumPools('queued'));
  },
});
new Gauge({
  name: 'proctor_browser_contexts_limit',
  help: 'Browser contexts this process may open at once (PROCTOR_BROWSER_CONCURRENCY)',
  registers: [registry],
  collect() {
    this.set(sumPools('concurrency'));
  },
});

/** Counts a browser pool's contexts on the gauges until the returned function is called. */
export function trackBrowserPool(stats: () => BrowserContextsSource): () => void {
  browserPools.add(stats);
  return () => browserPools.delete(stats);
}

/** One task queue type's backlog as Temporal reports it. */
export interface Backlog {
  taskQueue: string;
  type: 'workflow' | 'activity';
  tasks: number;
  ageSeconds: number;
}
let backlogReader: (() => Promise<Backlog[]>) | undefined;
let backlogRead: { at: number; answer: Promise<Backlog[]> } | undefined;
/** Temporal is asked at most once per this long, however many scrapers come (and both gauges share a reading). */
const backlogCacheMs = 5_000;

function backlog(): Promise<Backlog[]> {
  if (!backlogReader) return Promise.resolve([]);
  const now = Date.now();
  if (!backlogRead || now - backlogRead.at > backlogCacheMs) {
    // Temporal away: the gauges go missing rather than read 0, which would tell an autoscaler all is done.
    backlogRead = { at: now, answer: backlogReader().catch(() => []) };
  }
  return backlogRead.answer;
}

function backlogGauge(name: string, help: string, value: (b: Backlog) => number) {
  return new Gauge({
    name,
    help,
    labelNames: ['task_queue', 'type'] as const,
    registers: [registry],
    async collect() {
      const read = await backlog();
      this.reset();
      for (const b of read) this.set({ task_queue: b.taskQueue, type: b.type }, value(b));
    },
  });
}

backlogGauge(
  'proctor_task_queue_backlog',
  "Tasks waiting in Temporal's task queue for a worker (approximate, as Temporal reports it), by queue and type",
  (b) => b.tasks,
);
backlogGauge(
  'proctor_task_queue_backlog_age_seconds',
  'Age of the oldest task waiting in the task queue, by queue and type',
  (b) => b.ageSeconds,
);

/** Where the backlog gauges read from on a scrape: a process with a Temporal connection sets it. */
export function readBacklogFrom(reader: (() => Promise<Backlog[]>) | undefined): void {
  backlogReader = reader;
  backlogRead = undefined;
}

/** Expositions of other exporters in this process (Temporal's core), appended to the registry's. */
const extraSources = new Set<() => Promise<string>>();

export function addExposition(source: () => Promise<string>): () => void {
  extraSources.add(source);
  return () => extraSources.delete(source);
}

let processMetrics = false;

/**
 * Node's own metrics (CPU, memory, event-loop lag), once per process: the first endpoint started turns them on.
 * The lag is sampled every 100 ms, not prom-client's 10 ms: its timer a hundred times a second cost ~2.4 ms of CPU
 * per second (measured idle; ~60 ms of a worker's 3.5 s in bench/observability.ts's 1,000-test run), and a lag an
 * operator alerts on is hundreds of milliseconds.
 */
export function collectProcessMetrics(): void {
  if (processMetrics) return;
  processMetrics = true;
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
}

/** The Prometheus text exposition of everything this process measures. */
export async function renderMetrics(): Promise<string> {
  const parts = [await registry.metrics()];
  for (const source of extraSources) parts.push(await source().catch(() => ''));
  return parts.map((p) => (p.endsWith('\n') || p === '' ? p : `${p}\n`)).join('');
}

export const metricsContentType = registry.contentType;

/** Seconds since `started` (a `performance.now()`), for a histogram. */
export const secondsSince = (started: number): number => (performance.now() - started) / 1000;
