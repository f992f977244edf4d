import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { collectRunTests } from '../../src/db/queries/run-selection.js';
import { insertRun } from '../../src/db/queries/runs.js';
import type { Step } from '../../src/domain/steps.js';
import { listenOnFreePort } from '../support/net.js';
import { insertRecordedTestCase, applicationIdOf } from '../support/recorded.js';
import { startStack, waitForRun, type Stack } from '../support/worker-context.js';

// Retries, flakiness and quarantine through the real service: API, Temporal worker, Postgres and Chromium replaying
// against a small page server whose `/flaky` page fails every other time it is opened.

const ready = (heading: string) =>
  `<!doctype html><html><head><title>${heading}</title></head><body><h1>${heading}</h1></body></html>`;

/** `/flaky` shows "Ready" on every second request only; `/fine` always does, `/broken` never. */
async function startPages(): Promise<{
  url: string;
  flakyOpens: () => number;
  reset: () => void;
  stop: () => Promise<void>;
}> {
  let opens = 0;
  const server: Server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    if (req.url === '/flaky') res.end(ready(++opens % 2 === 0 ? 'Ready' : 'Loading failed'));
    else if (req.url === '/broken') res.end(ready('Loading failed'));
    else res.end(ready(req.url === '/fine' ? 'Ready' : 'Start'));
  });
  const port = await listenOnFreePort(server);
  return {
    url: `http://127.0.0.1:${port}`,
    flakyOpens: () => opens,
    reset: () => (opens = 0),
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const stepsFor = (path: string): Step[] => [
  { action: 'navigate', value: path, description: `Open ${path}` },
  { action: 'assert_visible', locator: "getByRole('heading', { name: 'Ready' })", description: 'The page is ready' },
];

describe('retries, flaky tests and quarantine', () => {
  let stack: Stack;
  let pages: Awaited<ReturnType<typeof startPages>>;
  let applicationId: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    pages = await startPages();
    stack = await startStack({ stepTimeoutMs: 1_500 });
    const app = (await stack.call('POST', '/v1/applications', { name: 'Pages' })).body;
    expect(
      (
        await stack.call('POST', `/v1/applications/${app.shortId}/environments`, {
          name: 'Default',
          url: `${pages.url}/`,
        })
      ).status,
    ).toBe(201);
    applicationId = await applicationIdOf(stack.db, app.shortId);
    for (const [name, path] of [
      ['flaky page', '/flaky'],
      ['fine page', '/fine'],
      ['broken page', '/broken'],
      ['wobbly page', '/broken'],
      ['history page', '/fine'],
    ] as const) {
      ids[name] = await insertRecordedTestCase(stack.db, {
        projectId: stack.tenant.projectId,
        applicationId,
        name,
        steps: stepsFor(path),
      });
    }
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
    await pages?.stop();
  });

  beforeEach(() => pages.reset());

  async function plan(name: string, testNames: string[]): Promise<string> {
    const res = await stack.call('POST', '/v1/test-plans', { name, testCaseIds: testNames.map((n) => ids[n]) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.shortId as string;
  }

  async function runPlan(testPlanShortId: string): Promise<any> {
    const started = await stack.call('POST', '/v1/run', { testPlanShortId });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const run = await waitForRun(stack, started.body.run.shortId);
    expect(run.status).toBe('COMPLETED');
    return { ...run, byName: Object.fromEntries(run.runTestCases.map((t: any) => [t.name, t])) };
  }

  const settings = async () => (await stack.call('GET', '/v1/project/settings')).body;
  /** A new project's settings: one retry, no quarantine rule. */
  const defaultSettings = {
    healPolicy: 'review',
    retries: 1,
    quarantine: null,
    issueResolveAfterRuns: 3,
    signalIgnoreUrls: [],
  };

  /**
   * Past runs of a test, newest first, written as a run records them: `flaky` passed on a retry, `passed` and
   * `failed` at the first attempt, `skipped` never ran.
   */
  async function seedHistory(testCaseId: string, runs: ('flaky' | 'passed' | 'failed' | 'skipped')[]): Promise<void> {
    // The test case as a run of it selects it; it waits for no other, so the run holds it alone.
    const selected = await collectRunTests(stack.db, stack.tenant.projectId, [testCaseId]);
    expect(selected.map((t) => t.id)).toEqual([testCaseId]);
    const testCase = selected[0]!;
    const now = Date.now();
    for (const [i, kind] of runs.entries()) {
      const run = await insertRun(stack.db, {
        projectId: stack.tenant.projectId,
        planId: null,
        meta: { trigger: 'HISTORY' },
        tests: [{ testCase, inPlan: true, environmentUrl: null, device: null }],
      });
      const finishedAt = new Date(now - (i + 1) * 60_000);
      await stack.db
        .updateTable('run_test_cases')
        .set({
          status: kind === 'skipped' ? 'SKIPPED' : 'COMPLETED',
          result: kind === 'skipped' ? 'SKIPPED' : kind === 'failed' ? 'FAILED' : 'PASSED',
          flaky: kind === 'flaky',
          attempts: kind === 'flaky' ? 2 : 1,
          finished_at: finishedAt,
        })
        .where('run_id', '=', run.id)
        .execute();
      await stack.db
        .updateTable('runs')
        .set({ status: 'COMPLETED', finished_at: finishedAt })
        .where('id', '=', run.id)
        .execute();
    }
  }

  it('settings: retries default to 1 and quarantine to off; bad values are a 400 with a message and change nothing', async () => {
    expect(await settings()).toEqual(defaultSettings);

    for (const body of [
      { retries: 4 },
      { retries: -1 },
      { retries: 1.5 },
      { healPolicy: 'auto', retries: 4 },
      { quarantine: { flakeRate: 0, minRuns: 10 } },
      { quarantine: { flakeRate: 5e-324, minRuns: 10 } },
      { quarantine: { flakeRate: 1.2, minRuns: 10 } },
      { quarantine: { flakeRate: 0.3, minRuns: 21 } },
      { quarantine: { flakeRate: 0.3 } },
      { retries: 2, quarantine: { flakeRate: 0.3, minRuns: 10, extra: true } },
    ]) {
      const res = await stack.call('PATCH', '/v1/project/settings', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual({ message: expect.any(String) });
      expect(await settings()).toEqual(defaultSettings);
    }
    expect((await stack.call('PATCH', '/v1/project/settings', { retries: 4 })).body.message).toMatch(/retries/);

    // 0.3 has no exact single-precision form: it still reads back as 0.3.
    const changed = await stack.call('PATCH', '/v1/project/settings', {
      retries: 3,
      quarantine: { flakeRate: 0.3, minRuns: 5 },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({
      healPolicy: 'review',
      retries: 3,
      quarantine: { flakeRate: 0.3, minRuns: 5 },
      issueResolveAfterRuns: 3,
      signalIgnoreUrls: [],
    });
    expect(await settings()).toEqual(changed.body);
    expect((await stack.call('PATCH', '/v1/project/settings', { retries: 1, quarantine: null })).body).toEqual(
      defaultSettings,
    );
  });

  it('a page that fails every other time: with the default 1 retry the run PASSES and the test is flaky after 2 attempts; with 0 retries the run FAILS', async () => {
    const flakyPlan = await plan('Flaky', ['flaky page', 'fine page']);
    const retried = await runPlan(flakyPlan);
    expect(retried.result).toBe('PASSED');
    expect(retried.byName['flaky page']).toMatchObject({
      status: 'COMPLETED',
      result: 'PASSED',
      flaky: true,
      attempts: 2,
      quarantined: false,
      changes: [],
      failureKind: null,
      evidence: null,
      error: null,
    });
    expect(retried.byName['flaky page'].resultTitle).toMatch(/2 attempts \(flaky\)/);
    expect(retried.byName['fine page']).toMatchObject({ result: 'PASSED', flaky: false, attempts: 1 });
    expect(pages.flakyOpens()).toBe(2);
    expect((await stack.call('PATCH', '/v1/project/settings', { retries: 0 })).status).toBe(200);
    pages.reset();
    const once = await runPlan(flakyPlan);
    expect(once.result).toBe('FAILED');
    expect(once.byName['flaky page']).toMatchObject({
      status: 'COMPLETED',
      result: 'FAILED',
      flaky: false,
      attempts: 1,
      quarantined: false,
    });
    expect(once.byName['flaky page'].failedStepIndex).toBe(1);
    // The replay says why: the heading it asserts is not there, and what the page showed instead.
    expect(['element-missing', 'assertion']).toContain(once.byName['flaky page'].failureKind);
    expect(once.byName['flaky page'].evidence).toMatchObject({ url: `${pages.url}/flaky` });
    expect(JSON.stringify(once.byName['flaky page'].evidence)).not.toContain('screenshotKey');
    expect(pages.flakyOpens()).toBe(1);
    await stack.call('PATCH', '/v1/project/settings', { retries: 1 });
  }, 120_000);

  it('a test that fails on every attempt is FAILED after 1 + retries attempts, not flaky', async () => {
    await stack.call('PATCH', '/v1/project/settings', { retries: 2 });
    const run = await runPlan(await plan('Broken', ['broken page']));
    expect(run.result).toBe('FAILED');
    expect(run.byName['broken page']).toMatchObject({ result: 'FAILED', flaky: false, attempts: 3 });
    await stack.call('PATCH', '/v1/project/settings', { retries: 1 });
  }, 120_000);

  it('manual quarantine: a quarantined failing test still runs and reports, quarantined, and does not fail the run', async () => {
    const brokenId = ids['broken page']!;
    const bad = await stack.call('PATCH', `/v1/test-cases/${brokenId}`, { quarantined: 'yes' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: expect.any(String) });

    const flagged = await stack.call('PATCH', `/v1/test-cases/${brokenId}`, { quarantined: true });
    expect(flagged.status).toBe(200);
    expect(flagged.body.quarantined).toBe(true);
    expect((await stack.call('GET', `/v1/test-cases/${brokenId}`)).body.quarantined).toBe(true);

    const run = await runPlan(await plan('With a quarantined test', ['broken page', 'fine page']));
    expect(run.result).toBe('PASSED');
    expect(run.byName['broken page']).toMatchObject({
      status: 'COMPLETED',
      result: 'FAILED',
      quarantined: true,
      attempts: 2,
    });
    expect(run.byName['fine page']).toMatchObject({ result: 'PASSED', quarantined: false });

    // Lifted: the same plan fails again.
    expect((await stack.call('PATCH', `/v1/test-cases/${brokenId}`, { quarantined: false })).body.quarantined).toBe(
      false,
    );
    expect((await runPlan(await plan('Quarantine lifted', ['broken page', 'fine page']))).result).toBe('FAILED');
  }, 180_000);

  it('flake rate: flaky runs over the last 20 finished runs, skipped ones not counted', async () => {
    const id = ids['history page']!;
    expect((await stack.call('GET', `/v1/test-cases/${id}`)).body).toMatchObject({
      flakeRate: 0,
      recentRuns: 0,
      quarantined: false,
    });

    // Newest first: 2 skipped (not counted), then 20 finished of which 3 flaky and 2 failed, then 6 older flaky ones outside the window.
    const window = [
      'flaky',
      'passed',
      'failed',
      'passed',
      'flaky',
      ...Array(13).fill('passed'),
      'failed',
      'flaky',
    ] as const;
    expect(window).toHaveLength(20);
    await seedHistory(id, ['skipped', 'skipped', ...window, ...Array(6).fill('flaky')]);
    const after = (await stack.call('GET', `/v1/test-cases/${id}`)).body;
    expect(after).toMatchObject({ flakeRate: 3 / 20, recentRuns: 20 });
  });

  it('quarantine rule: a test whose flake rate reaches the rule over enough runs is quarantined when the run is written', async () => {
    const id = ids['wobbly page']!;
    // 4 flaky of 10: 40%.
    await seedHistory(id, [
      'flaky',
      'passed',
      'flaky',
      'passed',
      'flaky',
      'passed',
      'flaky',
      'passed',
      'passed',
      'passed',
    ]);
    expect((await stack.call('GET', `/v1/test-cases/${id}`)).body).toMatchObject({
      flakeRate: 0.4,
      recentRuns: 10,
      quarantined: false,
    });
    const wobblyPlan = await plan('Wobbly', ['wobbly page', 'fine page']);

    // Over more runs than it has: not quarantined, and its failure fails the run.
    await stack.call('PATCH', '/v1/project/settings', { quarantine: { flakeRate: 0.3, minRuns: 12 } });
    const notYet = await runPlan(wobblyPlan);
    expect(notYet.result).toBe('FAILED');
    expect(notYet.byName['wobbly page']).toMatchObject({ result: 'FAILED', quarantined: false });

    // That failed run is its 11th finished one (4 flaky of 11: 36%); at 30% over 10 runs it is quarantined.
    await stack.call('PATCH', '/v1/project/settings', { quarantine: { flakeRate: 0.3, minRuns: 10 } });
    const quarantined = await runPlan(wobblyPlan);
    expect(quarantined.result).toBe('PASSED');
    expect(quarantined.byName['wobbly page']).toMatchObject({ result: 'FAILED', quarantined: true });
    expect(quarantined.byName['fine page']).toMatchObject({ result: 'PASSED', quarantined: false });
    // The manual flag is the test case's own; the rule only marks the run's row.
    expect((await stack.call('GET', `/v1/test-cases/${id}`)).body.quarantined).toBe(false);

    // Rule off: the same test fails the run again.
    await stack.call('PATCH', '/v1/project/settings', { quarantine: null });
    expect((await runPlan(wobblyPlan)).result).toBe('FAILED');
  }, 180_000);
});
