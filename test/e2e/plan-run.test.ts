import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';
import { startStack, waitForRun, type Stack } from '../support/worker-context.js';
import { planTestActivities } from '../support/plan-test-activities.js';
import { BlobNotFoundError } from '../../src/storage/blob-store.js';
import { createPlanRun } from '../../src/services/runs.js';
import { startPlanRun } from '../../src/temporal/lifecycle.js';
import { blobKeys, type PlanRunResult } from '../../workflows/plan-run-contract.js';
import { searchAttributes } from '../../workflows/search-attributes-contract.js';
import {
  brokenSteps,
  checkoutSteps,
  insertRecordedTestCase,
  loginSteps,
  slowSteps,
  todoSteps,
  applicationIdOf,
} from '../support/recorded.js';
import { countRows } from '../support/row-counts.js';

/** `RECORD_HISTORIES=1` refreshes the recorded histories that test/workflows/replay.test.ts replays. */
async function recordHistories(stack: Stack, run: any): Promise<void> {
  const client = await stack.temporal.get();
  // Tests are activities of the run now; testExecution.json (and planRun-children.json) keep the children's path.
  const targets = { planRun: `run:${run.shortId}` };
  for (const [name, workflowId] of Object.entries(targets)) {
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    writeFileSync(join('test/workflows/histories', `${name}.json`), historyToJSON(history));
  }
}

/** Every payload of a history (inputs, results), decoded: what the workflow was handed, as text. */
function payloadText(node: unknown): string {
  if (Array.isArray(node)) return node.map(payloadText).join('\n');
  if (!node || typeof node !== 'object') return '';
  return Object.entries(node)
    .map(([key, value]) =>
      key === 'payloads' && Array.isArray(value)
        ? value
            .map((p: { data?: Uint8Array | null }) => (p.data ? Buffer.from(p.data).toString('utf8') : ''))
            .join('\n')
        : payloadText(value),
    )
    .join('\n');
}

describe('plan runs over the dependency graph', () => {
  // Three copies of the fixture apps stand for three environments, so the request logs show which one a test used.
  let servers: FixtureApps[];
  let stack: Stack;
  const ids: Record<string, string> = {};
  let planShortId: string;
  let todoAppShortId: string;

  beforeAll(async () => {
    servers = await Promise.all([startFixtureApps(), startFixtureApps(), startFixtureApps()]);
    stack = await startStack({ concurrency: 6 });
    const [s1, s2, s3] = servers.map((s) => s.url);
    const shop = (await stack.call('POST', '/v1/applications', { name: 'Shop' })).body;
    const todo = (await stack.call('POST', '/v1/applications', { name: 'Todo' })).body;
    todoAppShortId = todo.shortId;
    const env = async (app: string, name: string, url: string) =>
      (await stack.call('POST', `/v1/applications/${app}/environments`, { name, url })).body.shortId as string;
    // Project defaults: server 1 for both applications.
    await env(shop.shortId, 'Default', `${s1}/shop/login`);
    const shopStaging = await env(shop.shortId, 'Staging', `${s2}/shop/login`);
    await env(todo.shortId, 'Default', `${s1}/todo/`);
    const todoStaging = await env(todo.shortId, 'Staging', `${s2}/todo/`);
    void s3;

    const appId = (shortId: string) => applicationIdOf(stack.db, shortId);
    const [shopId, todoId] = [await appId(shop.shortId), await appId(todo.shortId)];
    const add = (
      name: string,
      applicationId: string,
      steps: Parameters<typeof insertRecordedTestCase>[1]['steps'],
      deps: { resumeFrom?: string; waitFor?: string[] } = {},
    ) =>
      insertRecordedTestCase(stack.db, { projectId: stack.tenant.projectId, applicationId, name, steps, ...deps }).then(
        (id) => (ids[name] = id),
      );
    await add('login', shopId, loginSteps);
    await add('checkout', shopId, checkoutSteps, { resumeFrom: ids.login });
    await add(
      'cart count',
      shopId,
      [{ action: 'assert_visible', locator: "getByRole('link', { name: 'Cart (1)' })", description: 'cart' }],
      { resumeFrom: ids.login },
    );
    await add('fresh login', shopId, loginSteps, { waitFor: [ids.login!] });
    await add('todo milk', todoId, todoSteps('milk'));
    await add('todo bread', todoId, todoSteps('bread'));
    await add('todo after milk', todoId, todoSteps('eggs'), { waitFor: [ids['todo milk']!] });
    await add('broken', todoId, brokenSteps);
    await add('after broken', todoId, todoSteps('never'), { waitFor: [ids.broken!] });

    // The plan leaves out `login`: as a dependency it is included anyway.
    const plan = await stack.call('POST', '/v1/test-plans', {
      name: 'Everything',
      isDefault: true,
      testCaseIds: Object.entries(ids)
        .filter(([n]) => n !== 'login')
        .map(([, id]) => id),
      applications: [
        { applicationShortId: shop.shortId, environmentShortId: shopStaging },
        { applicationShortId: todo.shortId, environmentShortId: todoStaging },
      ],
    });
    expect(plan.status).toBe(201);
    planShortId = plan.body.shortId;
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
    await Promise.all(servers?.map((s) => s.stop()) ?? []);
  });

  let firstRun: any;

  it('runs the plan in parallel in dependency order, with the right environments and result', async () => {
    const started = await stack.call('POST', '/v1/run', {
      applications: [{ applicationShortId: todoAppShortId, environment: { url: `${servers[2]!.url}/todo/` } }],
      trigger: 'GITHUB',
      branch: 'main',
    });
    expect(started.status).toBe(200);
    expect(started.body.run).toMatchObject({ testCount: 9, testPlan: { name: 'Everything', shortId: planShortId } });
    expect(started.body.run.url).toBe(`https://app.proctor.test/runs/${started.body.run.shortId}`);

    const run = await waitForRun(stack, started.body.run.shortId);
    firstRun = run;
    if (process.env.RECORD_HISTORIES) await recordHistories(stack, run);
    const byName = Object.fromEntries(run.runTestCases.map((t: any) => [t.name, t]));
    expect(run.status).toBe('COMPLETED');
    expect(run.result).toBe('FAILED');
    for (const name of [
      'login',
      'checkout',
      'cart count',
      'fresh login',
      'todo milk',
      'todo bread',
      'todo after milk',
    ]) {
      expect(byName[name], name).toMatchObject({ status: 'COMPLETED', result: 'PASSED' });
    }
    expect(byName.broken).toMatchObject({ status: 'COMPLETED', result: 'FAILED', failedStepIndex: 1 });
    expect(byName.broken.screenshotUrl).toMatch(/^http/);
    expect(byName['after broken']).toMatchObject({ status: 'SKIPPED', result: 'SKIPPED' });
    expect(byName['after broken'].evaluationThought).toMatch(/wait-for dependency "broken" ended FAILED/);
    expect(byName.login.inPlan).toBe(false);

    // Operators recognise runs and tests in the Temporal UI by their summaries.
    const client = await stack.temporal.get();
    const parent = await client.workflow.getHandle(`run:${run.shortId}`).describe();
    expect(await parent.staticSummary()).toBe(`Run ${run.shortId} of plan 'Everything': 9 test(s)`);
    // Each test that ran is in an activity of the run (few ready tests: one each), summarised by the test's name.
    const tests = await planTestActivities(client, run.shortId);
    const ran = run.runTestCases
      .filter((t: any) => t.status !== 'SKIPPED')
      .map((t: any) => t.name)
      .sort();
    expect([...tests.values()].map((t) => t.summary).sort()).toEqual(ran);

    // The login's browser state reached checkout by blob key, not through the history, and is gone after the run.
    const stateKey = blobKeys.browserState(run.shortId, ids.login!);
    expect(tests.get(ids.checkout!)!.input.stateKey).toBe(stateKey);
    expect(payloadText(await client.workflow.getHandle(`run:${run.shortId}`).fetchHistory())).not.toContain(
      'shop_tab_token',
    );
    await expect(stack.activityDeps.blobs.get(stateKey)).rejects.toBeInstanceOf(BlobNotFoundError);

    // Precedence: shop uses the plan's environment (server 2) over the project default (server 1);
    // todo uses the run's override (server 3) over the plan's (server 2).
    expect(byName.login.environmentUrl).toBe(`${servers[1]!.url}/shop/login`);
    expect(byName['todo milk'].environmentUrl).toBe(`${servers[2]!.url}/todo/`);
    expect(servers[0]!.requests().filter((r) => r.startsWith('GET /'))).toEqual([]);
    expect(servers[1]!.requests().some((r) => r.startsWith('GET /shop/products'))).toBe(true);
    expect(servers[2]!.requests().some((r) => r.startsWith('GET /todo/'))).toBe(true);

    // Ordering and parallelism from the recorded execution windows.
    const window = (name: string) => ({
      start: Date.parse(byName[name].startedAt),
      end: Date.parse(byName[name].finishedAt),
    });
    for (const dependent of ['checkout', 'cart count', 'fresh login'])
      expect(window(dependent).start).toBeGreaterThanOrEqual(window('login').end);
    expect(window('todo after milk').start).toBeGreaterThanOrEqual(window('todo milk').end);
    const windows = run.runTestCases.filter((t: any) => t.startedAt).map((t: any) => window(t.name));
    const overlapping = windows.some((a: any, i: number) =>
      windows.some((b: any, j: number) => i !== j && a.start < b.end && b.start < a.end),
    );
    expect(overlapping).toBe(true);
  }, 120_000);

  it('a run that continues as new: every run of its chain reads the graph by reference, no test settings in any history', async () => {
    // What POST /v1/run does, with a history budget small enough that the 9-test run continues as new several times.
    const run = await createPlanRun(
      { db: stack.db },
      { projectId: stack.tenant.projectId, testPlanShortId: planShortId, meta: { trigger: 'API' } },
    );
    await startPlanRun(stack.temporal, {
      runId: run.id,
      runShortId: run.shortId,
      projectId: stack.tenant.projectId,
      concurrency: 2,
      heal: false,
      maxHistoryEvents: 8,
    });
    const client = await stack.temporal.get();
    const result = (await client.workflow.getHandle(`run:${run.shortId}`).result()) as PlanRunResult;
    // Two waves of ready tests (batches of two), one run of the chain each.
    expect(result.continuations).toBeGreaterThanOrEqual(1);
    expect(result).toMatchObject({
      status: 'COMPLETED',
      result: 'FAILED',
      counts: { PASSED: 7, FAILED: 1, SKIPPED: 1 },
    });
    // The search attributes its start set carry over each continuation, so the chain's last run upserts the result.
    const attrs = (await client.workflow.getHandle(`run:${run.shortId}`).describe()).typedSearchAttributes;
    expect([attrs.get(searchAttributes.run), attrs.get(searchAttributes.result)]).toEqual([run.shortId, 'FAILED']);

    // Same verdicts as the run that did not continue; each test read its URL from its row (the plan's environments:
    // server 2, this run has no override).
    const rows = (await waitForRun(stack, run.shortId)).runTestCases;
    const verdicts = (runTests: any[]) =>
      Object.fromEntries(runTests.map((t: any) => [t.name, `${t.status} ${t.result}`]));
    expect(verdicts(rows)).toEqual(verdicts(firstRun.runTestCases));
    for (const t of rows.filter((t: any) => t.status !== 'SKIPPED'))
      expect(t.environmentUrl, t.name).toMatch(new RegExp(`^${servers[1]!.url}/(shop|todo)/`));

    // Every run of the chain read the graph (loadRunGraph), none the plan; no environment URL entered a history.
    const histories = [];
    for (
      let runId: string | undefined = (await client.workflow.getHandle(`run:${run.shortId}`).describe()).runId;
      runId;
    ) {
      const history = await client.workflow.getHandle(`run:${run.shortId}`, runId).fetchHistory();
      histories.unshift(history);
      runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
    }
    expect(histories).toHaveLength(result.continuations + 1);
    for (const history of histories) {
      const activities = (history.events ?? []).flatMap(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? [],
      );
      expect(activities).toContain('loadRunGraph');
      expect(activities).not.toContain('loadRunPlan');
      const text = payloadText(history);
      for (const server of servers) expect(text).not.toContain(server.url);
    }
    // The graph is gone with the chain.
    await expect(stack.activityDeps.blobs.get(blobKeys.runGraph(run.shortId))).rejects.toBeInstanceOf(
      BlobNotFoundError,
    );
  }, 180_000);

  it('reruns the failed tests only, as a new run linked to the original', async () => {
    const rerun = await stack.call('POST', `/v1/run/${firstRun.shortId}`, { failedOnly: true });
    expect(rerun.status).toBe(200);
    expect(rerun.body.run.testCount).toBe(2);
    const run = await waitForRun(stack, rerun.body.run.shortId);
    expect(run.rerunOf).toBe(firstRun.shortId);
    expect(run.runTestCases.map((t: any) => t.name).sort()).toEqual(['after broken', 'broken']);
    expect(run.result).toBe('FAILED');
    const both = await stack.call('POST', `/v1/run/${firstRun.shortId}`, {
      failedOnly: true,
      projectTestCaseIds: [ids.broken],
    });
    expect(both.status).toBe(400);
  }, 120_000);

  it('cancels a run mid-way: CANCELLED, and every browser context released', async () => {
    const slowId = await insertRecordedTestCase(stack.db, {
      projectId: stack.tenant.projectId,
      applicationId: await applicationIdOf(stack.db, todoAppShortId),
      name: 'slow',
      steps: slowSteps,
    });
    const plan = await stack.call('POST', '/v1/test-plans', {
      name: 'Slow',
      testCaseIds: [slowId, ids['todo milk']],
      applications: [
        {
          applicationShortId: todoAppShortId,
          environmentShortId: (await stack.call('GET', `/v1/applications/${todoAppShortId}/environments`)).body
            .environments[0].shortId,
        },
      ],
    });
    const started = await stack.call('POST', '/v1/run', { testPlanShortId: plan.body.shortId });
    await waitForRun(stack, started.body.run.shortId, (r) =>
      r.runTestCases.some((t: any) => t.name === 'slow' && t.status === 'RUNNING'),
    );
    const cancel = await stack.call('POST', `/v1/run/${started.body.run.shortId}/cancel`);
    expect(cancel.status).toBe(202);
    const run = await waitForRun(stack, started.body.run.shortId);
    expect(run.status).toBe('CANCELLED');
    expect(run.runTestCases.find((t: any) => t.name === 'slow').status).toBe('CANCELLED');
    expect(stack.browsers.stats().contexts).toBe(0);
    expect((await stack.call('POST', `/v1/run/${started.body.run.shortId}/cancel`)).status).toBe(409);
  }, 120_000);

  it('refuses unknown plans, applications and environments and starts nothing', async () => {
    const before = await countRows(stack.db, 'runs');
    expect((await stack.call('POST', '/v1/run', { testPlanShortId: 'pln_doesnotexist' })).status).toBe(404);
    expect(
      (
        await stack.call('POST', '/v1/run', {
          applications: [{ applicationShortId: 'app_nope', environment: { url: 'https://x.test' } }],
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await stack.call('POST', '/v1/run', {
          applications: [{ applicationShortId: todoAppShortId, environment: { shortId: 'env_nope' } }],
        })
      ).status,
    ).toBe(404);
    expect((await stack.call('POST', '/v1/run', { notifications: [] })).status).toBe(400);
    expect((await stack.call('GET', '/v1/run/run_nope')).status).toBe(404);
    expect(await countRows(stack.db, 'runs')).toBe(before);
  });
});
