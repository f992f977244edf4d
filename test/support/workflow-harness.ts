// Workflow tests without a database, browser or LLM: the real workflow code on the time-skipping test server, with
// the activities it calls replaced by typed functions. Timers and timeouts of hours pass in milliseconds.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { Context } from '@temporalio/activity';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { IllegalStateError } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import type { Activities } from '../../activities/index.js';
import { loadPrograms } from '../../src/programs.js';
import { freePort } from '../../src/ports.js';
import { startWorkflow, type TemporalTarget } from '../../src/temporal/lifecycle.js';
import { bundleWorkflows } from '../../src/worker/worker.js';
import { workflowSpanSinks } from '../../src/temporal/tracing.js';
import { workflowBundle as suiteBundle } from './worker-context.js';
import type { Workflows, WorkflowType } from '../../workflows/shared.js';

/** The activities a test provides: the ones its workflow calls, typed as the worker registers them. */
export type MockActivities = Partial<Activities>;

export interface WorkflowHarness {
  env: TestWorkflowEnvironment;
  client: Client;
  /** An id no other test of the run uses (workflow ids, task queues). */
  uniqueId(prefix: string): string;
  /**
   * Runs `body` while a worker on its own task queue serves the workflows with `activities`; the worker stops
   * when `body` settles.
   */
  withWorker<R>(activities: MockActivities, body: (queue: WorkerQueue) => Promise<R>): Promise<R>;
  teardown(): Promise<void>;
}

export interface WorkerQueue {
  taskQueue: string;
  /** The target the lifecycle helpers take, over the test server's client. */
  target: TemporalTarget;
  /** Starts a workflow through `startWorkflow` (as the API does) and returns its typed handle. */
  start<T extends WorkflowType>(
    type: T,
    args: Parameters<Workflows[T]>,
    workflowId?: string,
  ): Promise<WorkflowHandle<Workflows[T]>>;
}

/**
 * Temporal's Runtime for a file of workflow tests, before its first worker: warnings only (worker state changes
 * are INFO, not news to these tests) and no signal handlers (vitest owns the process). test/workflows files share
 * their process with other files (vitest.config.ts), so a Runtime may be there already, made by a file that ran a
 * real worker first or installed by an earlier workflow file: that one is kept (at worst its INFO lines are noise).
 * The e2e files, one process each, keep the SDK's default Runtime (INFO: secrets-everywhere reads those lines).
 */
export function installQuietRuntime(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
  } catch (err) {
    if (!(err instanceof IllegalStateError)) throw err;
  }
}

/**
 * The time-skipping test server: the one `npm run setup:test` installed, else the SDK downloads it. On a port of our
 * picking, as every server a test starts (src/ports.ts says why not the SDK's).
 */
export async function startTimeSkipping(): Promise<TestWorkflowEnvironment> {
  const testServer = loadPrograms().temporalTestServer;
  return TestWorkflowEnvironment.createTimeSkipping({
    server: {
      ...(testServer && { executable: { type: 'existing-path', path: testServer } }),
      port: await freePort(),
    },
  });
}

/**
 * Starts the time-skipping test server (the one `npm run setup:test` installed, else the SDK downloads it) and
 * uses the suite's workflow bundle. `workflowsPath` bundles another entry (a test's own stub workflows).
 */
export async function createWorkflowHarness(opts: { workflowsPath?: string } = {}): Promise<WorkflowHarness> {
  installQuietRuntime();
  const [env, workflowBundle] = await Promise.all([
    startTimeSkipping(),
    opts.workflowsPath ? bundleWorkflows(opts.workflowsPath) : suiteBundle(),
  ]);
  const uniqueId = (prefix: string) => `${prefix}-${randomBytes(5).toString('hex')}`;
  return {
    env,
    client: env.client,
    uniqueId,
    async withWorker(activities, body) {
      const taskQueue = uniqueId('wf-test');
      // The bundle carries the tracing interceptors: their span sink is registered (and drops the spans).
      const worker = await Worker.create({
        connection: env.nativeConnection,
        taskQueue,
        workflowBundle,
        activities,
        sinks: workflowSpanSinks(undefined),
      });
      const target: TemporalTarget = { taskQueue, get: async () => env.client };
      const started: string[] = [];
      const queue: WorkerQueue = {
        taskQueue,
        target,
        async start(type, args, workflowId = uniqueId(type)) {
          await startWorkflow(target, type, { workflowId, args });
          started.push(workflowId);
          return env.client.workflow.getHandle<Workflows[typeof type]>(workflowId);
        },
      };
      try {
        return await worker.runUntil(body(queue));
      } finally {
        // A test that failed midway leaves its workflows open with no worker; their next task would stop the
        // server from skipping time and hang every later test of the file. Closed ones refuse, which is fine.
        await Promise.all(
          started.map((id) =>
            env.client.workflow
              .getHandle(id)
              .terminate('test finished')
              .catch(() => undefined),
          ),
        );
      }
    },
    teardown: () => env.teardown(),
  };
}

/**
 * Creates the harness before the file's tests and tears it down after them. The returned object is filled in by
 * `beforeAll`, so tests use it directly (`h.withWorker(…)`), as they would a harness made in their own hooks.
 */
export function useWorkflowHarness(opts: { workflowsPath?: string } = {}): WorkflowHarness {
  const h = {} as WorkflowHarness;
  beforeAll(async () => {
    Object.assign(h, await createWorkflowHarness(opts));
  });
  afterAll(() => h.teardown?.());
  return h;
}

/** Records each call's arguments, so a test asserts what its workflow asked of an activity. */
export function recorder<A extends unknown[], R>(
  impl: (...args: A) => Promise<R>,
): ((...args: A) => Promise<R>) & { calls: A[] } {
  const calls: A[] = [];
  return Object.assign(
    (...args: A) => {
      calls.push(args);
      return impl(...args);
    },
    { calls },
  );
}

/**
 * Waits on the real clock until `check` holds; a check that throws counts as not yet (a query asked before the
 * workflow's first task). Awaiting a `result()` instead lets the test server skip time, e.g. past a running
 * activity's heartbeat timeout, so a test that must not skip polls with this.
 */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (
    !(await Promise.resolve()
      .then(check)
      .catch(() => false))
  ) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A mocked activity's work that goes on until it is cancelled, heartbeating every 100 ms as the real activities do
 * (a heartbeat is how a cancellation reaches an activity): `onCancelled` runs when the cancellation arrives, which
 * is then thrown on.
 */
export async function busyUntilCancelled(onCancelled: () => void = () => {}): Promise<never> {
  const ctx = Context.current();
  for (;;) {
    ctx.heartbeat();
    try {
      await ctx.sleep(100);
    } catch (err) {
      onCancelled();
      throw err;
    }
  }
}

/** How a workflow ended: undefined when it completed, else what `result()` threw (a cancelled one's failure). */
export const failureOf = (handle: { result(): Promise<unknown> }): Promise<unknown> =>
  handle.result().then(
    () => undefined,
    (e: unknown) => e,
  );
