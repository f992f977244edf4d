import { randomBytes } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Activities } from '../../activities/index.js';
import { createPlanTestActivities } from '../../activities/plan-test.js';
import { createRunGraphActivities } from '../../activities/run-graph.js';
import type { RunPlanTest } from '../../activities/runs.js';
import type { ExecuteTestInput, ExecuteTestResult } from '../../activities/test-execution.js';
import { workflowBundle } from '../support/worker-context.js';
import { installQuietRuntime, busyUntilCancelled, startTimeSkipping } from '../support/workflow-harness.js';
import { failureForGood } from '../support/activity-failures.js';
import { BlobNotFoundError } from '../../src/storage/blob-store.js';
import { loadPrograms } from '../../src/programs.js';
import { blobKeys, type PlanRunInput, type PlanRunResult } from '../../workflows/plan-run-contract.js';
import { workflowIds } from '../../workflows/shared.js';
import { workflowSpanSinks } from '../../src/temporal/tracing.js';

// The planRun workflow on the time-skipping test server, with typed mocks of every activity it calls (its runPlanTest
// activities are the real ones, composed over the mocked replay and row writes): the scheduling, skipping, cancellation and continue-as-new branches in seconds,
// without Postgres or Chromium (test/e2e/plan-run.test.ts runs the same workflows on the real stack).

type Mocked = Pick<
  Activities,
  | 'markRunStarted'
  | 'loadRunPlan'
  | 'skipTests'
  | 'finishRun'
  | 'sendRunNotifications'
  | 'deleteBrowserStates'
  | 'planTestSettings'
  | 'markTestStarted'
  | 'recordedTestOutcome'
  | 'recordTestResult'
  | 'executeTest'
>;
type Behaviour = (input: ExecuteTestInput, blobs: Map<string, Buffer>) => Promise<Partial<ExecuteTestResult>>;

const testServer = loadPrograms().temporalTestServer;
let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleOption;

beforeAll(async () => {
  if (!testServer) throw new Error('temporal-test-server is not installed: run npm run setup:test');
  installQuietRuntime();
  env = await startTimeSkipping();
  bundle = await workflowBundle();
}, 120_000);

afterAll(async () => {
  await env?.teardown();
});

/** A test of the plan; ids are the names, so assertions read like the DAG. */
const node = (
  name: string,
  deps: { resumeFrom?: string; waitFor?: string[]; quarantined?: boolean; retries?: number } = {},
): RunPlanTest => ({
  runTestCaseId: `rtc-${name}`,
  testCaseId: name,
  name,
  baseUrl: 'http://app.test/',
  build: null,
  device: null,
  resumeFrom: deps.resumeFrom ?? null,
  waitFor: deps.waitFor ?? [],
  retries: deps.retries ?? 0,
  ...(deps.quarantined && { quarantined: true }),
});

const pass: Behaviour = async () => ({ status: 'PASSED' });

/** What the mocked activities saw; the blob store is a map, as the real activities' by-reference hand-over needs. */
function mockActivities(
  plan: RunPlanTest[],
  behaviour: Behaviour = pass,
  opts: { loadRunPlan?: Mocked['loadRunPlan'] } = {},
) {
  const blobs = new Map<string, Buffer>();
  const seen = {
    executed: [] as ExecuteTestInput[],
    recorded: new Map<string, string>(),
    skipped: new Map<string, string>(),
    finished: [] as Parameters<Mocked['finishRun']>[0][],
    runStarted: 0,
    notified: 0,
    deletedStates: [] as string[],
    inFlight: 0,
    maxInFlight: 0,
    /** Rows whose settings a test's activity read (tests go to their activity by reference). */
    settingsRead: [] as string[],
  };
  const byRunTestCase = new Map(plan.map((t) => [t.runTestCaseId, t.name]));
  const activities: Mocked = {
    async markRunStarted() {
      seen.runStarted++;
    },
    loadRunPlan:
      opts.loadRunPlan ?? (async ({ offset = 0, limit = plan.length }) => plan.slice(offset, offset + limit)),
    async skipTests({ skips }) {
      for (const s of skips) seen.skipped.set(s.testCaseId, s.reason);
    },
    async finishRun(input) {
      seen.finished.push(input);
      return { failureKinds: [] };
    },
    async sendRunNotifications() {
      seen.notified++;
      return { sent: [], failed: [], skipped: [] };
    },
    async deleteBrowserStates({ keys }) {
      for (const key of keys) blobs.delete(key);
      seen.deletedStates.push(...keys);
    },
    async planTestSettings({ runTestCaseIds }) {
      seen.settingsRead.push(...runTestCaseIds);
      return runTestCaseIds.map((id) => {
        const { runTestCaseId, baseUrl, build, device } = plan.find((t) => t.runTestCaseId === id)!;
        return { runTestCaseId, baseUrl, build, device };
      });
    },
    async markTestStarted() {},
    async recordedTestOutcome({ runTestCaseId }) {
      return (
        (seen.recorded.get(byRunTestCase.get(runTestCaseId)!) as 'PASSED' | 'FAILED' | 'ERROR' | undefined) ?? null
      );
    },
    async recordTestResult({ runTestCaseId, outcome }) {
      seen.recorded.set(byRunTestCase.get(runTestCaseId)!, outcome);
    },
    async executeTest(input) {
      seen.executed.push(input);
      seen.maxInFlight = Math.max(seen.maxInFlight, ++seen.inFlight);
      try {
        const result = await behaviour(input, blobs);
        return {
          status: 'PASSED',
          healed: [],
          stepsVersion: 1,
          durationMs: 5,
          llmCalls: 0,
          ...result,
        } as ExecuteTestResult;
      } finally {
        seen.inFlight--;
      }
    },
  };
  // The real by-reference graph over the mocked plan and the map as blob store.
  const blobStore = {
    async get(key: string) {
      const body = blobs.get(key);
      if (!body) throw new BlobNotFoundError(key);
      return body;
    },
    async put(key: string, body: Uint8Array) {
      blobs.set(key, Buffer.from(body));
    },
  };
  return {
    activities: {
      ...activities,
      ...createRunGraphActivities({ loadRunPlan: activities.loadRunPlan, blobs: blobStore }),
    },
    seen,
    blobs,
  };
}

async function runPlan(
  activities: Mocked,
  options: Partial<PlanRunInput> & { whileRunning?: (workflowId: string) => Promise<void> } = {},
): Promise<{ result: PlanRunResult; workflowId: string; firstRunId: string }> {
  const { whileRunning, ...overrides } = options;
  const taskQueue = `plan-run-${randomBytes(4).toString('hex')}`;
  const runShortId = `run_${randomBytes(4).toString('hex')}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    // The real composite over the mocked parts, as the worker composes it over the real ones.
    activities: { ...activities, ...createPlanTestActivities({ ...activities, executeMobileTest: noDeviceTests }) },
    defaultHeartbeatThrottleInterval: '100 milliseconds',
    maxHeartbeatThrottleInterval: '100 milliseconds',
    sinks: workflowSpanSinks(undefined),
  });
  const input: PlanRunInput = {
    runId: `id-${runShortId}`,
    runShortId,
    projectId: 'project',
    concurrency: 4,
    heal: false,
    ...overrides,
  };
  return worker.runUntil(async () => {
    const handle = await env.client.workflow.start('planRun', {
      taskQueue,
      workflowId: workflowIds.planRun(runShortId),
      args: [input],
    });
    if (whileRunning) await whileRunning(handle.workflowId);
    const result = (await handle.result()) as PlanRunResult;
    return { result, workflowId: handle.workflowId, firstRunId: handle.firstExecutionRunId };
  });
}

async function noDeviceTests(): Promise<never> {
  throw new Error('this plan has no mobile tests');
}

/** Every run of a chain's history, first to last, following continue-as-new. */
async function chainHistories(workflowId: string, firstRunId: string) {
  const histories = [];
  for (let runId: string | undefined = firstRunId; runId;) {
    const history = await env.client.workflow.getHandle(workflowId, runId).fetchHistory();
    histories.push(history);
    runId = history.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return histories;
}

const names = (inputs: ExecuteTestInput[]) => inputs.map((i) => i.testCaseId).sort();

describe('planRun (time-skipping server, mocked activities)', () => {
  it('runs every test once, dependents after their dependencies, and completes PASSED', async () => {
    const plan = [node('a'), node('b'), node('c', { waitFor: ['a'] }), node('d', { waitFor: ['b', 'c'] })];
    const finishedAt = new Map<string, number>();
    const { activities, seen } = mockActivities(plan, async (input) => {
      const dependencies = plan.find((t) => t.testCaseId === input.testCaseId)!.waitFor;
      for (const d of dependencies)
        expect(finishedAt.has(d), `${input.testCaseId} started before ${d} finished`).toBe(true);
      finishedAt.set(input.testCaseId, Date.now());
      return { status: 'PASSED' };
    });
    const { result } = await runPlan(activities);
    expect(result).toEqual({ status: 'COMPLETED', result: 'PASSED', counts: { PASSED: 4 }, continuations: 0 });
    expect(names(seen.executed)).toEqual(['a', 'b', 'c', 'd']);
    expect(Object.fromEntries(seen.recorded)).toEqual({ a: 'PASSED', b: 'PASSED', c: 'PASSED', d: 'PASSED' });
    expect(seen.runStarted).toBe(1);
    expect(seen.finished).toEqual([{ runId: expect.any(String), status: 'COMPLETED', result: 'PASSED' }]);
    expect(seen.notified).toBe(1);
  }, 60_000);

  it('skips the dependents of a failed test with the reason, transitively, and the run is FAILED', async () => {
    const plan = [
      node('login'),
      node('checkout', { resumeFrom: 'login' }),
      node('profile', { waitFor: ['login'] }),
      node('invoice', { waitFor: ['checkout'] }),
      node('search'),
    ];
    const { activities, seen } = mockActivities(plan, async (input) =>
      input.testCaseId === 'login'
        ? { status: 'FAILED', error: 'no Sign in button', failedStepIndex: 2 }
        : { status: 'PASSED' },
    );
    const { result } = await runPlan(activities);
    expect(result).toMatchObject({
      status: 'COMPLETED',
      result: 'FAILED',
      counts: { FAILED: 1, SKIPPED: 3, PASSED: 1 },
    });
    expect(names(seen.executed)).toEqual(['login', 'search']);
    expect(Object.fromEntries(seen.skipped)).toEqual({
      checkout: 'resume-from dependency "login" ended FAILED',
      profile: 'wait-for dependency "login" ended FAILED',
      invoice: 'wait-for dependency "checkout" ended SKIPPED',
    });
    expect(seen.finished.at(-1)).toMatchObject({ status: 'COMPLETED', result: 'FAILED' });
  }, 60_000);

  it('a test whose activity fails for good is ERROR, its dependents are skipped, the run still completes', async () => {
    const plan = [node('broken'), node('after', { waitFor: ['broken'] }), node('fine')];
    const { activities, seen } = mockActivities(plan, async (input) => {
      if (input.testCaseId === 'broken') throw failureForGood('test case has no recorded steps', 'BadTestDefinition');
      return { status: 'PASSED' };
    });
    const { result } = await runPlan(activities);
    expect(result).toMatchObject({
      status: 'COMPLETED',
      result: 'FAILED',
      counts: { ERROR: 1, SKIPPED: 1, PASSED: 1 },
    });
    expect(seen.recorded.get('broken')).toBe('ERROR');
    expect(seen.skipped.get('after')).toBe('wait-for dependency "broken" ended ERROR');
  }, 60_000);

  it('a quarantined test that fails, and the dependents skipped because of it, do not fail the run; an unquarantined failure still does', async () => {
    const plan = [node('flaky', { quarantined: true }), node('after', { waitFor: ['flaky'] }), node('fine')];
    const failFlaky: Behaviour = async (input) =>
      input.testCaseId === 'flaky' ? { status: 'FAILED', error: 'timing' } : { status: 'PASSED' };
    const { activities, seen } = mockActivities(plan, failFlaky);
    const { result } = await runPlan(activities);
    expect(result).toMatchObject({
      status: 'COMPLETED',
      result: 'PASSED',
      counts: { FAILED: 1, SKIPPED: 1, PASSED: 1 },
    });
    expect(seen.recorded.get('flaky')).toBe('FAILED');
    expect(seen.finished.at(-1)).toMatchObject({ status: 'COMPLETED', result: 'PASSED' });

    const unquarantined = mockActivities(
      [node('flaky'), node('after', { waitFor: ['flaky'] }), node('fine')],
      failFlaky,
    );
    expect((await runPlan(unquarantined.activities)).result).toMatchObject({ result: 'FAILED' });
  }, 60_000);

  it("hands each test the plan's retries: a test that fails once and then passes makes the run PASSED", async () => {
    const plan = [node('wobbly', { retries: 1 }), node('after', { waitFor: ['wobbly'], retries: 1 })];
    let wobbly = 0;
    const { activities, seen } = mockActivities(plan, async (input) =>
      input.testCaseId === 'wobbly' && ++wobbly === 1 ? { status: 'FAILED', error: 'late' } : { status: 'PASSED' },
    );
    const { result } = await runPlan(activities);
    expect(result).toMatchObject({ status: 'COMPLETED', result: 'PASSED', counts: { PASSED: 2 } });
    expect(seen.executed.map((i) => i.testCaseId)).toEqual(['wobbly', 'wobbly', 'after']);
  }, 60_000);

  it('hands resume-from browser state on by blob key, never by value, and deletes it when the run ends', async () => {
    const plan = [
      node('login'),
      node('checkout', { resumeFrom: 'login' }),
      node('cart', { resumeFrom: 'login' }),
      node('other'),
    ];
    // 3 MB of storage: over Temporal's 2 MB payload limit, so a run that carried it by value could not complete.
    const bigState = JSON.stringify({
      cookies: [],
      origins: [
        {
          origin: 'http://app.test',
          localStorage: [{ name: 'blob', value: 'x'.repeat(3 * 1024 * 1024) }],
          sessionStorage: [],
        },
      ],
      url: 'http://app.test/cart',
    });
    const readByDependents: string[] = [];
    const { activities, seen, blobs } = mockActivities(plan, async (input, store) => {
      if (input.captureStateKey) store.set(input.captureStateKey, Buffer.from(bigState));
      if (input.stateKey) {
        const state = JSON.parse(store.get(input.stateKey)!.toString('utf8')) as { url: string };
        readByDependents.push(`${input.testCaseId}:${state.url}`);
      }
      return { status: 'PASSED', stateKey: input.captureStateKey };
    });
    const { result, workflowId } = await runPlan(activities);
    expect(result).toMatchObject({ status: 'COMPLETED', result: 'PASSED' });

    const runShortId = workflowId.replace(/^run:/, '');
    const key = blobKeys.browserState(runShortId, 'login');
    expect(key).toBe(`runs/${runShortId}/state/login.json`);
    const inputOf = (name: string) => seen.executed.find((i) => i.testCaseId === name)!;
    expect(inputOf('login')).toMatchObject({ captureStateKey: key });
    expect(inputOf('login').stateKey).toBeUndefined();
    for (const dependent of ['checkout', 'cart']) {
      expect(inputOf(dependent)).toMatchObject({ stateKey: key });
      expect(inputOf(dependent).captureStateKey).toBeUndefined();
    }
    expect(inputOf('other').stateKey).toBeUndefined();
    expect(readByDependents.sort()).toEqual(['cart:http://app.test/cart', 'checkout:http://app.test/cart']);

    // Nothing of the state is in the run's history, where every test is one activity (no child workflows).
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    expect(JSON.stringify(history).length).toBeLessThan(100_000);
    const scheduled = (history.events ?? []).flatMap((e) =>
      e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name] : [],
    );
    expect(scheduled.filter((name) => name === 'runPlanTests')).toHaveLength(4);
    expect((history.events ?? []).some((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)).toBe(false);
    // The state, and the graph the run read by reference: nothing reads either again.
    expect(seen.deletedStates).toEqual([key, blobKeys.runGraph(runShortId)]);
    expect(blobs.size).toBe(0);
  }, 60_000);

  it('runs a deep ready queue in batches (back to back in one activity), still never more at once than allowed, every test once', async () => {
    const plan = [...Array.from({ length: 40 }, (_, i) => node(`t${i}`)), node('after', { waitFor: ['t0', 't39'] })];
    const { activities, seen } = mockActivities(plan, async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { status: 'PASSED' };
    });
    const { result, workflowId } = await runPlan(activities, { concurrency: 4 });
    expect(result).toMatchObject({ status: 'COMPLETED', result: 'PASSED', counts: { PASSED: 41 } });
    expect(names(seen.executed)).toEqual(plan.map((t) => t.testCaseId).sort());
    expect(seen.maxInFlight).toBeLessThanOrEqual(4);
    const after = seen.executed.findIndex((i) => i.testCaseId === 'after');
    expect(after).toBe(seen.executed.length - 1);

    // 41 tests in fewer activities, the first ones 8 long (40 ready over 4 slots), each named by its tests.
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    const batches = (history.events ?? []).flatMap((e) =>
      e.activityTaskScheduledEventAttributes?.activityType?.name === 'runPlanTests' ? [e] : [],
    );
    const sizes = batches.map(
      (e) =>
        (
          JSON.parse(
            Buffer.from(e.activityTaskScheduledEventAttributes!.input!.payloads![0]!.data!).toString('utf8'),
          ) as { tests: unknown[] }
        ).tests.length,
    );
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(41);
    expect(sizes.slice(0, 4)).toEqual([8, 8, 8, 8]);
    expect(sizes.at(-1)).toBe(1);
    const summary = JSON.parse(Buffer.from(batches[0]!.userMetadata!.summary!.data!).toString('utf8')) as string;
    expect(summary).toBe('8 tests: t0, t1, t2, t3, t4, t5, t6, t7');
  }, 60_000);

  it('a batch whose activity fails for good: its tests keep what they recorded, the others are ERROR with the reason', async () => {
    const plan = Array.from({ length: 8 }, (_, i) => node(`t${i}`));
    const { activities, seen } = mockActivities(plan);
    const record = activities.recordTestResult;
    let refused = false;
    activities.recordTestResult = async (input) => {
      // The database refuses the third test's result once, for good: the batch's activity fails after two recorded.
      if (input.runTestCaseId === 'rtc-t2' && !refused) {
        refused = true;
        throw ApplicationFailure.create({ message: 'database is read-only', type: 'ReadOnly', nonRetryable: true });
      }
      return record(input);
    };
    const { result } = await runPlan(activities, { concurrency: 1 });
    expect(result).toMatchObject({ status: 'COMPLETED', result: 'FAILED' });
    expect(seen.recorded.get('t0')).toBe('PASSED');
    expect(seen.recorded.get('t1')).toBe('PASSED');
    expect(seen.recorded.get('t2')).toBe('ERROR');
    // The batch's tests that never ran are ERROR too (the run does not start them again behind the user's back).
    const batchOf8 = [...seen.recorded.entries()]
      .filter(([, outcome]) => outcome === 'ERROR')
      .map(([name]) => name)
      .sort();
    expect(batchOf8).toEqual(['t2', 't3', 't4', 't5', 't6', 't7']);
    expect(names(seen.executed)).toEqual(['t0', 't1', 't2']);
  }, 60_000);

  it('never runs more tests at once than the run allows', async () => {
    const plan = Array.from({ length: 10 }, (_, i) => node(`t${i}`));
    const { activities, seen } = mockActivities(plan, async () => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      return { status: 'PASSED' };
    });
    const { result } = await runPlan(activities, { concurrency: 3 });
    expect(result).toMatchObject({ status: 'COMPLETED', result: 'PASSED', counts: { PASSED: 10 } });
    expect(seen.maxInFlight).toBe(3);
  }, 60_000);

  it('cancelling the run reaches the running tests within a second and ends CANCELLED', async () => {
    const plan = [node('slow-1'), node('slow-2'), node('later', { waitFor: ['slow-1'] })];
    const cancelledAfterMs: number[] = [];
    let cancelAt = 0;
    const { activities, seen } = mockActivities(plan, () =>
      busyUntilCancelled(() => cancelledAfterMs.push(Date.now() - cancelAt)),
    );
    const { result } = await runPlan(activities, {
      concurrency: 2,
      whileRunning: async (workflowId) => {
        const deadline = Date.now() + 20_000;
        while (seen.inFlight < 2) {
          if (Date.now() > deadline) throw new Error('the two tests never ran');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        cancelAt = Date.now();
        await env.client.workflow.getHandle(workflowId).cancel();
      },
    });
    expect(result).toMatchObject({ status: 'CANCELLED', result: null, counts: { CANCELLED: 2 } });
    expect(cancelledAfterMs).toHaveLength(2);
    for (const ms of cancelledAfterMs) expect(ms).toBeLessThan(1_500);
    expect(names(seen.executed)).toEqual(['slow-1', 'slow-2']);
    expect(seen.finished).toEqual([{ runId: expect.any(String), status: 'CANCELLED', result: null }]);
  }, 60_000);

  it('continues as new when its history grows, carrying outcomes: every test once, skips and state keys intact', async () => {
    // 18 tests in a chain of layers; with a budget of 30 events the run continues several times.
    const plan = [
      ...Array.from({ length: 6 }, (_, i) => node(`a${i}`)),
      ...Array.from({ length: 6 }, (_, i) => node(`b${i}`, i % 2 ? { waitFor: [`a${i}`] } : { resumeFrom: `a${i}` })),
      ...Array.from({ length: 6 }, (_, i) => node(`c${i}`, { waitFor: [`b${i}`] })),
    ];
    // The plan as the database has it: read once per chain. Later reads see a test added meanwhile (the chain's
    // graph must not change under it: its carried outcomes are by position).
    let planLoads = 0;
    const loadRunPlan: Mocked['loadRunPlan'] = async () => (++planLoads === 1 ? plan : [...plan, node('added-later')]);
    const { activities, seen, blobs } = mockActivities(
      plan,
      async (input, store) => {
        if (input.stateKey && !store.has(input.stateKey)) throw new Error(`state ${input.stateKey} missing`);
        if (input.captureStateKey) store.set(input.captureStateKey, Buffer.from('{}'));
        expect(input.baseUrl, 'settings read from the row').toBe('http://app.test/');
        return input.testCaseId === 'a1' ? { status: 'FAILED', error: 'broken' } : { status: 'PASSED' };
      },
      { loadRunPlan },
    );
    const { result, workflowId, firstRunId } = await runPlan(activities, { concurrency: 3, maxHistoryEvents: 30 });

    expect(result.continuations).toBeGreaterThanOrEqual(2);
    expect(result).toMatchObject({
      status: 'COMPLETED',
      result: 'FAILED',
      counts: { PASSED: 15, FAILED: 1, SKIPPED: 2 },
    });
    const executed = seen.executed.map((i) => i.testCaseId);
    expect(executed).toHaveLength(new Set(executed).size);
    expect(executed).toHaveLength(16);
    expect(Object.fromEntries(seen.skipped)).toEqual({
      b1: 'wait-for dependency "a1" ended FAILED',
      c1: 'wait-for dependency "b1" ended SKIPPED',
    });
    expect(seen.runStarted).toBe(1);
    expect(seen.finished).toHaveLength(1);
    expect(seen.notified).toBe(1);
    // The graph and the states were deleted when the chain ended.
    expect(blobs.size).toBe(0);

    // The plan was loaded once for the whole chain; every run of it read the graph by reference, and no test's
    // settings (its URL) entered any history: the tests' activities read them from their rows.
    expect(planLoads).toBe(1);
    expect(new Set(seen.settingsRead)).toEqual(new Set(executed.map((id) => `rtc-${id}`)));
    const runs = await chainHistories(workflowId, firstRunId);
    expect(runs.length).toBe(result.continuations + 1);
    for (const history of runs) {
      const activityTypes = (history.events ?? []).flatMap(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? [],
      );
      expect(activityTypes).toContain('loadRunGraph');
      expect(activityTypes).not.toContain('loadRunPlan');
      const payloads = (history.events ?? []).flatMap((e) => [
        ...(e.activityTaskScheduledEventAttributes?.input?.payloads ?? []),
        ...(e.activityTaskCompletedEventAttributes?.result?.payloads ?? []),
        ...(e.workflowExecutionStartedEventAttributes?.input?.payloads ?? []),
      ]);
      expect(payloads.length).toBeGreaterThan(0);
      for (const p of payloads) expect(Buffer.from(p.data ?? []).toString('utf8')).not.toContain('http://app.test/');
    }

    // The first run of the chain ended by continuing as new, and launched no test once its history had reached the
    // budget: a workflow task sees the history's length at its start (its WorkflowTaskStarted event's id), and every
    // batch of tests was scheduled by a task that started below 30 events. What comes after the budget is the drain
    // of the batches already running, whose events depend on how their completions fall into workflow tasks (a fixed
    // bound on the whole length failed a shuffled fresh run at exactly 60).
    const first = await env.client.workflow.getHandle(workflowId, firstRunId).fetchHistory();
    const events = first.events ?? [];
    expect(events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    const launchedAt = events.flatMap((e) => {
      const scheduled = e.activityTaskScheduledEventAttributes;
      if (scheduled?.activityType?.name !== 'runPlanTests') return [];
      return [Number(scheduled.workflowTaskCompletedEventId) - 1];
    });
    expect(launchedAt.length).toBeGreaterThan(0);
    expect(Math.max(...launchedAt)).toBeLessThan(30);
    expect(events.length).toBeGreaterThanOrEqual(30);
  }, 60_000);

  it('makes progress in every run of its chain, even with a history budget smaller than loading costs', async () => {
    const plan = Array.from({ length: 5 }, (_, i) => node(`t${i}`, i ? { waitFor: [`t${i - 1}`] } : {}));
    const { activities, seen } = mockActivities(plan);
    const { result } = await runPlan(activities, { maxHistoryEvents: 1 });
    expect(result).toMatchObject({ status: 'COMPLETED', result: 'PASSED', counts: { PASSED: 5 } });
    // A chain of five: each run starts the one test that is ready, then continues as new.
    expect(result.continuations).toBe(4);
    expect(names(seen.executed)).toEqual(['t0', 't1', 't2', 't3', 't4']);
  }, 60_000);

  it('an activity of the run itself failing for good ends the run ERROR with the reason', async () => {
    const { activities, seen } = mockActivities([], pass, {
      loadRunPlan: async () => {
        throw ApplicationFailure.create({ message: 'run id-x not found', type: 'NotFound', nonRetryable: true });
      },
    });
    const { result } = await runPlan(activities);
    expect(result).toEqual({ status: 'ERROR', result: null, counts: {}, continuations: 0 });
    expect(seen.finished).toEqual([
      { runId: expect.any(String), status: 'ERROR', result: null, error: 'run id-x not found' },
    ]);
    expect(seen.executed).toEqual([]);
    expect(seen.notified).toBe(1);
  }, 60_000);
});
