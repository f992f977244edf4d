// Prometheus metrics of the production processes (issue 35, item 2): a `proctor api` and a `proctor worker` of
// their own, on the suite's Temporal and a fresh Postgres. A run started while no worker polls waits in the task
// queue, and the API's backlog gauge says so; the worker then takes it, counts its start and its tests' results,
// and serves Temporal's own core metrics beside Proctor's.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { loadMasterKey } from '../../src/db/secrets.js';
import { startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';
import { freePort, waitFor } from '../support/net.js';
import { configured, metricLabels } from '../support/metric-labels.js';
import { hasMetric, scrape, sumOf, type Sample } from '../support/prometheus-text.js';
import { applicationIdOf, brokenSteps, insertRecordedTestCase, todoSteps } from '../support/recorded.js';
import { startStack, type Stack } from '../support/worker-context.js';
import {
  isRunning,
  killWorker,
  startProctorProcess,
  startWorkerProcess,
  workerProcessEnv,
  type WorkerProcess,
} from '../support/worker-process.js';

describe('/metrics on the API and the worker during a plan run', () => {
  let apps: FixtureApps;
  let stack: Stack;
  let api: WorkerProcess;
  let worker: WorkerProcess | undefined;
  let apiUrl: string;
  let workerMetricsUrl: string;
  let workerMetricsPort: number;
  let planShortId: string;
  const blobDir = mkdtempSync(join(tmpdir(), 'proctor-metrics-blobs-'));

  beforeAll(async () => {
    // No in-process worker: the only worker is the `proctor worker` started below, once the run waits for it.
    [apps, stack] = await Promise.all([startFixtureApps(), startStack({ worker: false })]);
    let apiPort: number, smtpPort: number;
    [apiPort, smtpPort, workerMetricsPort] = await Promise.all([freePort(), freePort(), freePort()]);
    apiUrl = `http://127.0.0.1:${apiPort}`;
    workerMetricsUrl = `http://127.0.0.1:${workerMetricsPort}/metrics`;
    api = startProctorProcess('api', {
      DATABASE_URL: stack.databaseUrl!,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: stack.taskQueue,
      HOST: '127.0.0.1',
      PORT: String(apiPort),
      PROCTOR_INBOX_SMTP_PORT: String(smtpPort),
      PROCTOR_DATA_DIR: blobDir,
      PROCTOR_BLOB_DIR: blobDir,
      PROCTOR_BLOB_SECRET: randomBytes(32).toString('hex'),
      PROCTOR_MASTER_KEY: loadMasterKey().toString('base64'),
      LOG_LEVEL: 'warn',
    });

    const todo = (await stack.call('POST', '/v1/applications', { name: 'Todo' })).body;
    await stack.call('POST', `/v1/applications/${todo.shortId}/environments`, {
      name: 'Default',
      url: `${apps.url}/todo/`,
    });
    const applicationId = await applicationIdOf(stack.db, todo.shortId);
    const add = (name: string, steps: Parameters<typeof insertRecordedTestCase>[1]['steps']) =>
      insertRecordedTestCase(stack.db, { projectId: stack.tenant.projectId, applicationId, name, steps });
    const ids = [await add('todo milk', todoSteps('milk')), await add('broken', brokenSteps)];
    const plan = await stack.call('POST', '/v1/test-plans', { name: 'Metrics', testCaseIds: ids });
    expect(plan.status, JSON.stringify(plan.body)).toBe(201);
    planShortId = plan.body.shortId;

    await waitFor(
      async () => {
        if (!isRunning(api)) throw new Error(`proctor api exited:\n${api.output()}`);
        return (await fetch(`${apiUrl}/healthz`).catch(() => undefined)) !== undefined;
      },
      60_000,
      'proctor api to listen',
    );
  }, 120_000);

  afterAll(async () => {
    if (worker) await killWorker(worker);
    if (api) await killWorker(api);
    await stack?.close();
    await apps?.stop();
    rmSync(blobDir, { recursive: true, force: true });
  });

  const apiCall = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${stack.tenant.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  /** Scrapes until `check` holds; returns that scrape. Fails with the last one's relevant lines. */
  async function scrapeUntil(url: string, check: (s: Sample[]) => boolean, what: string): Promise<Sample[]> {
    let last: Sample[] = [];
    await waitFor(
      async () => {
        last = await scrape(url);
        return check(last);
      },
      60_000,
      what,
    ).catch((err: Error) => {
      const proctor = last.filter((s) => s.name.startsWith('proctor_')).map((s) => JSON.stringify(s));
      throw new Error(`${err.message}; last scrape:\n${proctor.join('\n')}`);
    });
    return last;
  }

  const backlog = (s: Sample[]) => sumOf(s, 'proctor_task_queue_backlog', { task_queue: stack.taskQueue });
  const runEnded = async (shortId: string) =>
    ['COMPLETED', 'ERROR', 'CANCELLED'].includes((await apiCall('GET', `/v1/run/${shortId}`)).body.status);

  it('shows the backlog while no worker polls, then the worker counts the run and serves Temporal core metrics', async () => {
    const apiMetrics = `${apiUrl}/metrics`;
    // Unauthenticated, like /healthz: a scraper holds no project token.
    const before = await scrape(apiMetrics);
    expect(backlog(before)).toBe(0);
    expect(hasMetric(before, 'process_cpu_user_seconds_total')).toBe(true);

    const first = await apiCall('POST', '/v1/run', { testPlanShortId: planShortId });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    // The run's workflow task waits: the API reads Temporal's backlog on a scrape (cached a few seconds).
    await scrapeUntil(apiMetrics, (s) => backlog(s) >= 1, 'the API to report a backlog');

    worker = startWorkerProcess(
      workerProcessEnv({
        stack,
        blobDir,
        extra: {
          PROCTOR_ALLOW_PRIVATE_NETWORKS: 'true',
          PROCTOR_STEP_TIMEOUT_MS: '1000',
          PROCTOR_METRICS_PORT: String(workerMetricsPort),
        },
      }),
    );
    const w = worker;
    const ended = async (shortId: string) => {
      if (!isRunning(w)) throw new Error(`proctor worker exited:\n${w.output()}`);
      return runEnded(shortId);
    };
    await waitFor(() => ended(first.body.run.shortId), 90_000, 'the first run to end');

    const afterFirst = await scrapeUntil(
      workerMetricsUrl,
      // The workflow completes just after its last activity wrote the run's end.
      (s) => sumOf(s, 'proctor_runs_finished_total') === 1 && hasMetric(s, 'temporal_workflow_completed_total'),
      'the worker to count the first run',
    );
    expect(sumOf(afterFirst, 'proctor_runs_started_total')).toBe(1);
    expect(sumOf(afterFirst, 'proctor_runs_finished_total', { result: 'failed' })).toBe(1);
    expect(sumOf(afterFirst, 'proctor_tests_started_total')).toBe(2);
    expect(sumOf(afterFirst, 'proctor_tests_finished_total', { result: 'passed' })).toBe(1);
    expect(sumOf(afterFirst, 'proctor_tests_finished_total', { result: 'failed' })).toBe(1);
    expect(sumOf(afterFirst, 'proctor_test_duration_seconds_count')).toBe(2);
    expect(sumOf(afterFirst, 'proctor_step_duration_seconds_count', { action: 'fill', outcome: 'ok' })).toBe(1);
    // Temporal's core: slots, sticky cache and task latencies, in seconds and with `_total` on counters.
    for (const name of [
      'temporal_worker_task_slots_available',
      'temporal_sticky_cache_size',
      'temporal_workflow_task_schedule_to_start_latency_seconds_count',
      'temporal_activity_execution_latency_seconds_count',
      'temporal_workflow_completed_total',
    ])
      expect(hasMetric(afterFirst, name), name).toBe(true);
    // Drained: both processes read the same queue's backlog.
    await scrapeUntil(apiMetrics, (s) => backlog(s) === 0, 'the API backlog to drain');
    await scrapeUntil(
      workerMetricsUrl,
      (s) => backlog(s) === 0 && hasMetric(s, 'proctor_task_queue_backlog'),
      'the worker backlog',
    );

    // The counters move with the next run, in the same worker.
    const second = await apiCall('POST', '/v1/run', { testPlanShortId: planShortId });
    expect(second.status).toBe(200);
    await waitFor(() => ended(second.body.run.shortId), 90_000, 'the second run to end');
    const afterSecond = await scrapeUntil(
      workerMetricsUrl,
      (s) => sumOf(s, 'proctor_runs_finished_total') === 2,
      'the worker to count the second run',
    );
    expect(sumOf(afterSecond, 'proctor_runs_started_total')).toBe(2);
    expect(sumOf(afterSecond, 'proctor_tests_finished_total')).toBe(4);
    expect(sumOf(afterSecond, 'proctor_browser_contexts_limit')).toBe(4);
    expect(sumOf(afterSecond, 'proctor_browser_contexts_in_use')).toBe(0);

    // What both processes recorded for real takes its label values from the closed sets: no id crept in.
    const apiSamples = await scrape(apiMetrics);
    for (const sample of [...afterSecond, ...apiSamples].filter((s) => s.name.startsWith('proctor_')))
      for (const [label, value] of Object.entries(sample.labels)) {
        const allowed = metricLabels[label];
        expect(allowed, `${sample.name}{${label}}`).toBeDefined();
        if (allowed === configured) continue;
        expect(allowed, `${sample.name}{${label}="${value}"}`).toContain(value);
      }
    expect(new Set(afterSecond.flatMap((s) => (s.name.startsWith('proctor_') ? [s.labels.task_queue] : [])))).toEqual(
      new Set([undefined, stack.taskQueue]),
    );
  }, 240_000);

  it('keeps /metrics out of the API document', async () => {
    const doc = await fetch(`${apiUrl}/v1/openapi.json`).then((r) => r.json() as Promise<{ paths: object }>);
    expect(Object.keys(doc.paths)).not.toContain('/metrics');
    expect((await fetch(`${apiUrl}/metrics`)).headers.get('content-type')).toContain('text/plain');
  });
});
