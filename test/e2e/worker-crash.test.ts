// Crash safety: a `proctor worker` process killed with SIGKILL in the middle of a run (no graceful shutdown,
// Chromium with it) loses no result and records none twice; a new worker process finishes the run.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';
import { waitFor } from '../support/net.js';
import { insertRecordedTestCase, todoSteps, applicationIdOf } from '../support/recorded.js';
import { startStack, type Stack } from '../support/worker-context.js';
import type { Step } from '../../src/domain/steps.js';
import {
  killWorker,
  startWorkerProcess,
  waitWhileRunning,
  workerProcessEnv,
  type WorkerProcess,
} from '../support/worker-process.js';
import { pendingPlanTests, planTestActivities } from '../support/plan-test-activities.js';

// ---- processes, from /proc: a pid alone can be reused, so a process is its pid and its start time ----

interface Proc {
  pid: number;
  ppid: number;
  pgrp: number;
  state: string;
  start: string;
  cmd: string;
}

function readProc(pid: number): Proc | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may contain spaces: the other fields follow the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
    return { pid, state: fields[0]!, ppid: Number(fields[1]), pgrp: Number(fields[2]), start: fields[19]!, cmd };
  } catch {
    return undefined; // it ended while we looked
  }
}

function allProcs(): Proc[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .map((p) => readProc(Number(p)))
    .filter((p): p is Proc => p !== undefined);
}

/** The process, everything it started (Chromium puts itself in a process group of its own) and those groups. */
function processTree(rootPid: number): Proc[] {
  const procs = allProcs();
  const tree = new Map<number, Proc>();
  const queue = [rootPid];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    for (const p of procs) {
      if ((p.pid === pid || p.ppid === pid) && !tree.has(p.pid)) {
        tree.set(p.pid, p);
        if (p.pid !== pid) queue.push(p.pid);
      }
    }
  }
  const groups = new Set([...tree.values()].map((p) => p.pgrp));
  for (const p of procs) if (groups.has(p.pgrp) && !tree.has(p.pid)) tree.set(p.pid, p);
  return [...tree.values()];
}

/** Still running: same pid and start time, and not a zombie waiting for a parent that may never reap it. */
const stillAlive = (procs: Proc[]): Proc[] =>
  procs.filter((p) => {
    const now = readProc(p.pid);
    return now !== undefined && now.start === p.start && now.state !== 'Z' && now.state !== 'X';
  });

const isChromium = (p: Proc) => /chrom/i.test(p.cmd);

const slow = (n: number): Step[] =>
  Array.from({ length: n }, () => ({ action: 'navigate' as const, value: '/slow', description: 'A slow page (2 s)' }));

const terminal = (status: string) => ['COMPLETED', 'ERROR', 'CANCELLED'].includes(status);

describe('a worker process killed mid-run', () => {
  let apps: FixtureApps;
  let stack: Stack;
  const blobDir = mkdtempSync(join(tmpdir(), 'proctor-crash-blobs-'));
  const started: WorkerProcess[] = [];
  const seen: Proc[] = [];
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    apps = await startFixtureApps();
    stack = await startStack({ worker: false });
    const app = (await stack.call('POST', '/v1/applications', { name: 'Todo' })).body;
    const env = await stack.call('POST', `/v1/applications/${app.shortId}/environments`, {
      name: 'Local',
      url: `${apps.url}/todo/`,
    });
    expect(env.status).toBe(201);
    const applicationId = await applicationIdOf(stack.db, app.shortId);
    const add = async (name: string, steps: Step[], waitFor?: string[]) =>
      (ids[name] = await insertRecordedTestCase(stack.db, {
        projectId: stack.tenant.projectId,
        applicationId,
        name,
        steps,
        waitFor,
      }));
    await add('quick', todoSteps('milk'));
    await add('slow a', slow(4));
    await add('slow b', slow(4));
    await add('slow c', slow(3));
    await add('after slow a', todoSteps('bread'), [ids['slow a']!]);
    const plan = await stack.call('POST', '/v1/test-plans', {
      name: 'Crash',
      isDefault: true,
      testCaseIds: Object.values(ids),
    });
    expect(plan.status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    // Whatever happened, leave no worker and no Chromium behind.
    for (const w of started) await killWorker(w);
    for (const p of stillAlive(seen)) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    await stack?.close();
    await apps?.stop();
    rmSync(blobDir, { recursive: true, force: true });
  });

  // No model: a run replays recorded steps.
  const workerEnv = () =>
    workerProcessEnv({
      stack,
      blobDir,
      extra: { PROCTOR_ALLOW_PRIVATE_NETWORKS: 'true', PROCTOR_BROWSER_CONCURRENCY: '4' },
    });

  const rows = () =>
    stack.db
      .selectFrom('run_test_cases')
      .select(['test_case_id', 'name', 'status', 'result', 'started_at', 'finished_at', 'error'])
      .where('run_id', '=', runId)
      .execute();
  const runRow = () =>
    stack.db
      .selectFrom('runs')
      .select(['status', 'result', 'finished_at'])
      .where('id', '=', runId)
      .executeTakeFirstOrThrow();
  let runId: string;

  it('loses no result and records none twice: a new worker finishes the run', async () => {
    const t0 = Date.now();
    const lap = (what: string) =>
      process.stdout.write(`[worker-crash] ${what} at ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
    const first = startWorkerProcess(workerEnv());
    started.push(first);

    const start = await stack.call('POST', '/v1/run', { trigger: 'CI' });
    expect(start.status).toBe(200);
    expect(start.body.run.testCount).toBe(5);
    const shortId: string = start.body.run.shortId;
    runId = start.body.run.id;
    const client = await stack.temporal.get();
    const testActivity = async (name: string) => (await planTestActivities(client, shortId)).get(ids[name]!);

    // Kill once `quick` is over for good (its activity completed, so nothing of it can run again) while the slow tests
    // are inside their activity on this worker.
    await waitWhileRunning(
      first,
      async () => {
        const byName = new Map((await rows()).map((r) => [r.name, r]));
        if (byName.get('quick')?.status !== 'COMPLETED' || byName.get('slow a')?.status !== 'RUNNING') return false;
        if ((await testActivity('quick'))?.completed !== 1) return false;
        return (await pendingPlanTests(client, shortId)).some((t) => t.testCaseId === ids['slow a'] && t.started);
      },
      // The worker process transpiles its code first (it loads the suite's workflow bundle): seconds, more on a busy machine.
      90_000,
      'quick to complete and slow a to be in its browser activity',
    );
    lap('quick done, slow tests running');
    const beforeKill = new Map((await rows()).map((r) => [r.name, r]));
    expect(beforeKill.get('slow a')!.status).toBe('RUNNING');
    expect(beforeKill.get('slow b')!.status).toBe('RUNNING');
    expect(beforeKill.get('after slow a')!.status).toBe('PENDING');

    // The crash: the worker's whole process group, no chance to clean up.
    const tree = processTree(first.child.pid!);
    seen.push(...tree);
    expect(tree.filter(isChromium).length, 'the worker launched Chromium').toBeGreaterThan(0);
    await killWorker(first);
    lap('worker killed');

    // Chromium is in process groups of its own (Playwright launches it detached); it must go with the worker
    // anyway, since its DevTools pipe closed.
    await waitFor(
      async () => stillAlive(tree).length === 0,
      15_000,
      "the killed worker's Chromium processes to exit",
    ).catch(() => {
      throw new Error(
        `orphans of the killed worker:\n${stillAlive(tree)
          .map((p) => `${p.pid} (pgrp ${p.pgrp}): ${p.cmd.slice(0, 160)}`)
          .join('\n')}`,
      );
    });

    // Nothing finishes without a worker.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(terminal((await runRow()).status)).toBe(false);
    expect((await rows()).find((r) => r.name === 'slow a')!.status).toBe('RUNNING');

    const second = startWorkerProcess(workerEnv());
    started.push(second);
    // A killed attempt is retried once its heartbeat timeout (browserActivity's 10 s) has passed.
    await waitWhileRunning(
      second,
      async () => terminal((await runRow()).status),
      120_000,
      'the run to end on the second worker',
    );
    lap('run ended');

    const run = await stack.call('GET', `/v1/run/${shortId}?testCases=all`);
    expect(run.body).toMatchObject({ status: 'COMPLETED', result: 'PASSED' });
    expect(run.body.runTestCases).toHaveLength(5);

    // Every result recorded exactly once: one row per test case, each with one final state.
    const after = await rows();
    const perTest = new Map<string, number>();
    for (const r of after) perTest.set(r.test_case_id!, (perTest.get(r.test_case_id!) ?? 0) + 1);
    expect([...perTest.keys()].sort()).toEqual(Object.values(ids).sort());
    expect([...perTest.values()]).toEqual([1, 1, 1, 1, 1]);
    for (const r of after) {
      expect(r, r.name).toMatchObject({ status: 'COMPLETED', result: 'PASSED', error: null });
      expect(r.finished_at, r.name).toBeInstanceOf(Date);
    }
    const byName = new Map(after.map((r) => [r.name, r]));
    // The test that ended before the crash was not run again.
    expect(byName.get('quick')!.finished_at).toEqual(beforeKill.get('quick')!.finished_at);
    // The wait-for dependency held across the crash.
    expect(byName.get('after slow a')!.started_at!.getTime()).toBeGreaterThanOrEqual(
      byName.get('slow a')!.finished_at!.getTime(),
    );

    // Temporal's view: the activity of a test that was running at the kill was retried after its heartbeat timed
    // out; the one of `quick` ran once.
    expect((await testActivity('quick'))!.started).toEqual([{ identity: expect.any(String), attempt: 1 }]);
    const slowA = (await testActivity('slow a'))!.started;
    expect(slowA).toHaveLength(1);
    expect(slowA[0]!.attempt).toBeGreaterThan(1);
    expect(slowA[0]!.lastFailure).toMatch(/heartbeat/i);

    // The second worker stops cleanly on SIGINT and takes its Chromium with it.
    const secondTree = processTree(second.child.pid!);
    seen.push(...secondTree);
    second.child.kill('SIGINT');
    expect(await second.exited, second.output()).toBe(0);
    await waitFor(async () => stillAlive(secondTree).length === 0, 15_000, "the second worker's processes to exit");
    lap('second worker stopped');
  }, 210_000);

  // A rolling upgrade: Kubernetes sends SIGTERM and waits. The worker stops taking work but lets the tests it is
  // running finish (PROCTOR_WORKER_DRAIN_SECONDS), so none of them is cancelled and run again elsewhere.
  it('a worker stopped with SIGTERM finishes the tests it holds, then exits 0 with its Chromium', async () => {
    const draining = startWorkerProcess({ ...workerEnv(), PROCTOR_WORKER_DRAIN_SECONDS: '60' });
    started.push(draining);
    const start = await stack.call('POST', '/v1/run', { trigger: 'CI' });
    expect(start.status).toBe(200);
    const shortId: string = start.body.run.shortId;
    runId = start.body.run.id;
    const client = await stack.temporal.get();
    // Held: the tests of each activity the worker is executing, which its first test's row shows (the worker marks
    // it RUNNING). Temporal's `started` alone is not enough: it says so once the task is handed to the worker's
    // poller, before the worker runs it (a fresh run SIGTERMed in that gap, and the test it had not begun stayed
    // PENDING for the next worker, as it should).
    const executing = async (now: Awaited<ReturnType<typeof rows>>) => {
      const begun = new Set(now.filter((r) => r.started_at !== null).map((r) => r.test_case_id!));
      const pending = (await pendingPlanTests(client, shortId)).filter((t) => t.started);
      const activities = new Set(pending.filter((t) => begun.has(t.testCaseId)).map((t) => t.activityId));
      return pending.filter((t) => activities.has(t.activityId)).map((t) => t.testCaseId);
    };
    await waitWhileRunning(
      draining,
      async () => {
        const now = await rows();
        const running = now.filter((r) => r.status === 'RUNNING' && r.test_case_id !== ids['quick']);
        const held = await executing(now);
        return running.filter((r) => held.includes(r.test_case_id!)).length >= 2;
      },
      90_000,
      'two slow tests to be in their browser activity',
    );
    const held = await executing(await rows());
    const tree = processTree(draining.child.pid!);
    seen.push(...tree);
    draining.child.kill('SIGTERM');
    expect(await draining.exited, draining.output()).toBe(0);
    await waitFor(async () => stillAlive(tree).length === 0, 15_000, "the drained worker's processes to exit");
    // What it held finished on it, at the first attempt; the rest waits for a worker.
    const byId = new Map((await rows()).map((r) => [r.test_case_id!, r]));
    for (const id of held) {
      expect(byId.get(id), id).toMatchObject({ status: 'COMPLETED', result: 'PASSED' });
      const started = (await planTestActivities(client, shortId)).get(id)!.started;
      expect(started, id).toEqual([{ identity: expect.any(String), attempt: 1 }]);
    }
    expect(terminal((await runRow()).status)).toBe(false);

    const next = startWorkerProcess(workerEnv());
    started.push(next);
    await waitWhileRunning(next, async () => terminal((await runRow()).status), 120_000, 'the run to end');
    expect((await stack.call('GET', `/v1/run/${shortId}`)).body).toMatchObject({
      status: 'COMPLETED',
      result: 'PASSED',
    });
    const perTest = new Map<string, number>();
    for (const r of await rows()) perTest.set(r.test_case_id!, (perTest.get(r.test_case_id!) ?? 0) + 1);
    expect([...perTest.values()]).toEqual([1, 1, 1, 1, 1]);
    next.child.kill('SIGINT');
    expect(await next.exited, next.output()).toBe(0);
  }, 210_000);
});
