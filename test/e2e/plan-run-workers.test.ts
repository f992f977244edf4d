// Horizontal workers (issue 25): two `proctor worker` processes on one task queue share a plan run. Each has its own
// Chromium; what links them is what links workers on different machines: the database, Temporal and the blob store
// (MinIO here, no shared disk). A test resumed from another's browser state may run on the other worker: it can
// only pass if the state went through the blob store (with a store per worker such a run FAILS). A worker killed
// mid-run leaves its share to the other one.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3BlobStore } from '../../src/storage/s3.js';
import { startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';
import { minioBucket, startInstalledMinio, type MinioServer } from '../support/minio.js';
import { waitFor } from '../support/net.js';
import { checkoutSteps, insertRecordedTestCase, loginSteps, todoSteps } from '../support/recorded.js';
import { addApplication } from '../support/applications.js';
import { startScriptedLlm, type ScriptedLlm } from '../support/scripted-llm.js';
import { startStack, waitForRun, type Stack } from '../support/worker-context.js';
import {
  isRunning,
  killWorker,
  startWorkerProcess,
  workerProcessEnv,
  type WorkerProcess,
} from '../support/worker-process.js';
import type { Step } from '../../src/domain/steps.js';
import { pendingPlanTests, planTestActivities } from '../support/plan-test-activities.js';

const identities = ['worker-a', 'worker-b'] as const;
/** The plan a worker is killed under: slow tests that hold both workers, then chains that must still finish once. */
const killPlanTests = [
  'slow 1',
  'slow 2',
  'slow 3',
  'slow 4',
  'login 1',
  'checkout 1',
  'cart 1',
  'after checkout 1',
  'login 2',
  'checkout 2',
];
const cartSteps: Step[] = [
  {
    action: 'assert_visible',
    locator: "getByRole('link', { name: 'Cart (1)' })",
    description: 'The cart kept the mug',
  },
];
const slowSteps = (n: number): Step[] =>
  Array.from({ length: n }, () => ({ action: 'navigate' as const, value: '/slow', description: 'A slow page (2 s)' }));

interface ExecuteTestAttempt {
  identity: string;
  attempt: number;
}

describe('one plan run shared by two worker processes', () => {
  let apps: FixtureApps;
  let llm: ScriptedLlm;
  let stack: Stack;
  let minio: MinioServer;
  const blobDir = mkdtempSync(join(tmpdir(), 'proctor-workers-blobs-'));
  const workers = new Map<string, WorkerProcess>();
  const ids: Record<string, string> = {};
  /** Test name -> its resume-from dependency's name. */
  const resumes: Record<string, string> = {};
  let shopPlan: string;
  let killPlan: string;

  const failIfExited = () => {
    for (const [name, w] of workers)
      if (!isRunning(w)) throw new Error(`${name} exited (${w.child.exitCode ?? w.child.signalCode}):\n${w.output()}`);
  };

  beforeAll(async () => {
    minio = await startInstalledMinio();
    const s3 = minioBucket(minio, 'proctor-workers');
    const blobs = createS3BlobStore(s3);
    await blobs.ensureReady();
    [apps, llm, stack] = await Promise.all([
      startFixtureApps(),
      startScriptedLlm(),
      startStack({ worker: false, blobs }),
    ]);
    // Both processes bundle the workflows while the test data is written. Each keeps its dev data in a directory of
    // its own: the blobs are in MinIO.
    for (const identity of identities) {
      const env = {
        TEMPORAL_WORKER_IDENTITY: identity,
        PROCTOR_ALLOW_PRIVATE_NETWORKS: 'true',
        PROCTOR_BROWSER_CONCURRENCY: '3',
      };
      const s3Env = {
        S3_ENDPOINT: s3.endpoint,
        S3_ACCESS_KEY: s3.accessKey,
        S3_SECRET_KEY: s3.secretKey,
        S3_BUCKET: s3.bucket,
      };
      mkdirSync(join(blobDir, identity));
      workers.set(
        identity,
        startWorkerProcess(
          workerProcessEnv({ stack, llm, blobDir: join(blobDir, identity), extra: { ...env, ...s3Env } }),
        ),
      );
    }
    const applicationId = (await addApplication(stack, 'Shop', { name: 'Local', url: `${apps.url}/shop/login` })).id;
    const add = async (name: string, steps: Step[], deps: { resumeFrom?: string; waitFor?: string[] } = {}) => {
      ids[name] = await insertRecordedTestCase(stack.db, {
        projectId: stack.tenant.projectId,
        applicationId,
        name,
        steps,
        resumeFrom: deps.resumeFrom && ids[deps.resumeFrom],
        waitFor: deps.waitFor?.map((d) => ids[d]!),
      });
      if (deps.resumeFrom) resumes[name] = deps.resumeFrom;
    };
    // Five chains: a login, two tests resumed from its browser state (signed in, one mug in the cart: without that
    // state they fail), and a test waiting for the checkout. Ten resume-from edges: with tests spread over two
    // workers, some cross.
    for (let k = 1; k <= 5; k++) {
      await add(`login ${k}`, loginSteps);
      await add(`checkout ${k}`, checkoutSteps, { resumeFrom: `login ${k}` });
      await add(`cart ${k}`, cartSteps, { resumeFrom: `login ${k}` });
      await add(`after checkout ${k}`, todoSteps(`milk ${k}`), { waitFor: [`checkout ${k}`] });
    }
    // For the kill: tests long enough (8 s) for a worker to be caught holding one.
    for (let k = 1; k <= 4; k++) await add(`slow ${k}`, slowSteps(4));
    const plan = async (name: string, names: string[]) =>
      (await stack.call('POST', '/v1/test-plans', { name, testCaseIds: names.map((n) => ids[n]) })).body
        .shortId as string;
    shopPlan = await plan(
      'Shop chains',
      Object.keys(ids).filter((n) => !n.startsWith('slow')),
    );
    killPlan = await plan('Kill', killPlanTests);

    // Both workers poll the queue for workflow and activity tasks before a run starts (bundling takes seconds).
    const client = await stack.temporal.get();
    const pollers = async (taskQueueType: 1 | 2) =>
      (
        (
          await client.workflowService.describeTaskQueue({
            namespace: 'default',
            taskQueue: { name: stack.taskQueue },
            taskQueueType,
          })
        ).pollers ?? []
      ).map((p) => p.identity);
    await waitFor(
      async () => {
        failIfExited();
        const [workflow, activity] = await Promise.all([pollers(1), pollers(2)]);
        return identities.every((id) => workflow.includes(id) && activity.includes(id));
      },
      120_000,
      'both workers to poll the task queue',
    );
  }, 180_000);

  afterAll(async () => {
    for (const w of workers.values()) await killWorker(w);
    await stack?.close();
    await llm?.stop();
    await apps?.stop();
    await minio?.stop();
    rmSync(blobDir, { recursive: true, force: true });
  });

  /** Who ran a test's activity: each attempt that finished it (a retry shows as one started event, attempt > 1). */
  async function executeTestRuns(
    runShortId: string,
    testName: string,
  ): Promise<{ started: ExecuteTestAttempt[]; completed: number }> {
    const activity = (await planTestActivities(await stack.temporal.get(), runShortId)).get(ids[testName]!);
    return {
      started: (activity?.started ?? []).map(({ identity, attempt }) => ({ identity, attempt })),
      completed: activity?.completed ?? 0,
    };
  }

  /** The run PASSED with one row per test, each run once to PASSED. */
  async function expectEveryTestPassedOnce(runShortId: string, names: string[]): Promise<void> {
    const run = await waitForRun(stack, runShortId, undefined, 240_000);
    expect(run).toMatchObject({ status: 'COMPLETED', result: 'PASSED' });
    expect(run.runTestCases.map((t: any) => t.name).sort()).toEqual([...names].sort());
    for (const t of run.runTestCases) expect(t, t.name).toMatchObject({ status: 'COMPLETED', result: 'PASSED' });
    const rows = await stack.db
      .selectFrom('run_test_cases as r')
      .innerJoin('runs', 'runs.id', 'r.run_id')
      .select('r.test_case_id')
      .where('runs.short_id', '=', runShortId)
      .execute();
    expect(rows).toHaveLength(names.length);
    // Replays need no model (and the workers' tool mode is set, so no startup probe asks it either).
    expect(llm.requests).toHaveLength(0);
  }

  it("spreads the tests over both workers; a test resumed on the other worker gets its dependency's state", async () => {
    const started = await stack.call('POST', '/v1/run', { testPlanShortId: shopPlan });
    expect(started.status).toBe(200);
    const shortId: string = started.body.run.shortId;
    const names = Object.keys(ids).filter((n) => !n.startsWith('slow'));
    await expectEveryTestPassedOnce(shortId, names);

    const ranOn = new Map<string, string>();
    for (const name of names) {
      const { started: attempts, completed } = await executeTestRuns(shortId, name);
      expect(attempts, name).toEqual([{ identity: expect.stringMatching(/^worker-[ab]$/), attempt: 1 }]);
      expect(completed, name).toBe(1);
      ranOn.set(name, attempts[0]!.identity);
    }
    const perWorker = Object.fromEntries(
      identities.map((id) => [id, [...ranOn.values()].filter((w) => w === id).length]),
    );
    process.stdout.write(`[plan-run-workers] executeTest per worker: ${JSON.stringify(perWorker)}\n`);
    for (const id of identities) expect(perWorker[id], `tests run by ${id}`).toBeGreaterThan(0);
    const crossed = Object.entries(resumes).filter(([test, dep]) => ranOn.get(test) !== ranOn.get(dep));
    process.stdout.write(
      `[plan-run-workers] resumed on the other worker: ${crossed.map(([t, d]) => `${t} (${ranOn.get(t)}) <- ${d} (${ranOn.get(d)})`).join(', ')}\n`,
    );
    // Ten resume-from edges over two workers: all ten on the same side is ~1 run in 1,000.
    expect(crossed.length, 'resume-from pairs split across the workers').toBeGreaterThan(0);
  }, 300_000);

  it('a worker killed mid-run (SIGKILL): the other finishes the run, every test once', async () => {
    const started = await stack.call('POST', '/v1/run', { testPlanShortId: killPlan });
    expect(started.status).toBe(200);
    const shortId: string = started.body.run.shortId;
    const client = await stack.temporal.get();
    // Kill worker-b while it holds a test's executeTest (started by it, not only scheduled).
    let held = '';
    await waitFor(
      async () => {
        failIfExited();
        const running = await stack.db
          .selectFrom('run_test_cases as r')
          .innerJoin('runs', 'runs.id', 'r.run_id')
          .select('r.name')
          .where('runs.short_id', '=', shortId)
          .where('r.status', '=', 'RUNNING')
          .execute();
        const pending = await pendingPlanTests(client, shortId);
        for (const { name } of running) {
          if (pending.some((t) => t.testCaseId === ids[name] && t.started && t.worker === 'worker-b')) held = name;
        }
        return held !== '';
      },
      120_000,
      'worker-b to hold a running test',
    );
    await killWorker(workers.get('worker-b')!);
    workers.delete('worker-b');

    await expectEveryTestPassedOnce(shortId, killPlanTests);
    for (const name of killPlanTests) expect((await executeTestRuns(shortId, name)).completed, name).toBe(1);
    // The test worker-b held was retried on worker-a once its heartbeat timed out.
    const retried = await executeTestRuns(shortId, held);
    expect(retried.started).toHaveLength(1);
    expect(retried.started[0]).toMatchObject({ identity: 'worker-a' });
    expect(retried.started[0]!.attempt).toBeGreaterThan(1);
  }, 300_000);
});
