import { beforeAll, describe, expect, it } from 'vitest';
import { deletePlanSchedules } from '../../src/temporal/schedules.js';
import { createApiContext, databaseKinds, useApiContext } from '../support/app-context.js';
import { freePort } from '../support/net.js';
import { rowIdOf } from '../support/row-ids.js';
import { countRows } from '../support/row-counts.js';
import * as schedules from '../support/schedule-api.js';

// The API context talks to the shared Temporal dev server, but runs no worker: the Schedules created here use
// expressions that do not fire during the test, and every test deletes what it created.

describe.each(databaseKinds)('test plan schedules (%s)', (kind) => {
  const ctx = useApiContext(kind);
  let plan: { shortId: string; id: string };
  let otherPlan: { shortId: string; id: string };

  async function createPlan(name: string, token = ctx.tenant.token) {
    const res = await ctx.call('POST', '/v1/test-plans', { name }, token);
    expect(res.status).toBe(201);
    return { shortId: res.body.shortId as string, id: await rowIdOf(ctx.db, 'test_plans', res.body.shortId) };
  }

  const path = (p: { shortId: string }) => `/v1/test-plans/${p.shortId}/schedules`;
  const rowCount = () => countRows(ctx.db, 'test_plan_schedules');
  const temporalId = (id: string) => `plan-schedule:${id}`;
  const handle = async (id: string) => (await ctx.deps.temporal.get()).schedule.getHandle(temporalId(id));

  beforeAll(async () => {
    plan = await createPlan('Nightly');
    otherPlan = await createPlan('Theirs', ctx.other.token);
  });

  it('creates a schedule with its Temporal Schedule, lists it with the next run times, and deletes both', async () => {
    const created = await ctx.call('POST', path(plan), { cron: '0 6 * * 1-5', description: ' Weekday mornings ' });
    expect(created.status).toBe(201);
    const { id } = created.body;
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      cron: '0 6 * * 1-5',
      description: 'Weekday mornings',
      nextRunTimes: expect.any(Array),
      createdAt: expect.any(String),
    });
    expect(created.body.nextRunTimes).toHaveLength(3);
    for (const time of created.body.nextRunTimes.map((t: string) => new Date(t))) {
      expect([time.getUTCHours(), time.getUTCMinutes(), time.getUTCSeconds()]).toEqual([6, 0, 0]);
      expect([1, 2, 3, 4, 5]).toContain(time.getUTCDay());
      expect(time.getTime()).toBeGreaterThan(Date.now());
    }
    const row = await schedules.row(ctx, 'test_plan_schedules', id);
    expect(row).toMatchObject({
      test_plan_id: plan.id,
      cron: '0 6 * * 1-5',
      description: 'Weekday mornings',
      temporal_schedule_id: `plan-schedule:${id}`,
    });

    // The Temporal Schedule starts scheduledPlanRun on the API's task queue with the plan, one run at a time.
    const described = await schedules.expectStarts(ctx, temporalId(id), {
      workflowType: 'scheduledPlanRun',
      args: [
        { projectId: ctx.tenant.projectId, testPlanId: plan.id, scheduleId: `plan-schedule:${id}`, concurrency: 100 },
      ],
      overlap: 'BUFFER_ONE',
    });
    expect(described.memo).toMatchObject({ testPlanId: plan.id, description: 'Weekday mornings' });
    expect(described.state.paused).toBe(false);

    const second = await ctx.call('POST', path(plan), { cron: '@daily' });
    expect(second.status).toBe(201);
    expect(second.body.description).toBeNull();
    const listed = await schedules.expectList(ctx, path(plan), [
      [id, '0 6 * * 1-5'],
      [second.body.id, '@daily'],
    ]);
    expect(listed[0]!.nextRunTimes).toEqual(created.body.nextRunTimes);
    expect(listed[1]!.nextRunTimes[0]).toMatch(/T00:00:00\.000Z$/);

    const deleted = await ctx.call('DELETE', `${path(plan)}/${id}`);
    expect(deleted).toMatchObject({ status: 200, body: { deleted: true } });
    await schedules.expectGone(ctx, [temporalId(id)]);
    expect((await ctx.call('GET', path(plan))).body.schedules.map((s: any) => s.id)).toEqual([second.body.id]);
    expect((await ctx.call('DELETE', `${path(plan)}/${id}`)).status).toBe(404);

    expect((await ctx.call('DELETE', `${path(plan)}/${second.body.id}`)).status).toBe(200);
    expect(await rowCount()).toBe(0);
  });

  it("accepts Temporal's forms: shorthands, @every, time zones, a year field, a leading second", async () => {
    const forms = [
      '@hourly',
      '@every 90m',
      '@every 1h/15m',
      'CRON_TZ=Europe/Paris 0 9 * * mon-fri',
      '0 12 1 jan * 2099',
      '30 0 12 * * * 2099',
      '*/15 9-17 * * 1-5',
    ];
    for (const cron of forms) {
      const res = await ctx.call('POST', path(plan), { cron });
      expect(res.status, `${cron}: ${JSON.stringify(res.body)}`).toBe(201);
      if (cron.startsWith('CRON_TZ=Europe/Paris')) {
        const parisHour = (t: string) =>
          new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', hour: 'numeric' }).format(new Date(t));
        expect(res.body.nextRunTimes.map(parisHour)).toEqual(['09', '09', '09']);
      }
      if (cron === '30 0 12 * * * 2099') expect(res.body.nextRunTimes[0]).toBe('2099-01-01T12:00:30.000Z');
      expect((await ctx.call('DELETE', `${path(plan)}/${res.body.id}`)).status).toBe(200);
    }
    expect(await rowCount()).toBe(0);
  });

  it('refuses an invalid cron expression with a 400 naming cron, and writes nothing', async () => {
    const invalid: [string, RegExp][] = [
      ['61 * * * *', /^cron: minute "61": "61" is not 0-59/],
      ['every hour', /^cron: expected 5 fields/],
      ['* * * *', /^cron: expected 5 fields .* got 4/],
      ['0 0 L * *', /^cron: day of month "L"/],
      ['0 0 * * 5-1', /^cron: day of week "5-1": range "5-1" ends before it starts/],
      ['*/0 * * * *', /^cron: minute "\*\/0": step "0"/],
      ['0 9 * * MON#2', /^cron: "#" is not supported/],
      ['*/30 * * * * * *', /^cron: a plan runs at most once a minute/],
      ['@every 10s', /^cron: a plan runs at most once a minute/],
      ['@every 1h/90m', /^cron: the offset 90m is longer than the interval 1h/],
      ['@reboot', /^cron: unknown form "@reboot"/],
      ['CRON_TZ=Mars/Olympus 0 * * * *', /^cron: unknown time zone "Mars\/Olympus"/],
      ['', /^cron: is empty/],
      // Valid syntax that matches no future time.
      ['0 0 31 2 *', /^cron: "0 0 31 2 \*" never fires/],
      ['0 0 1 1 * 2001', /^cron: .* never fires/],
      // Node knows the zone case-insensitively, Temporal does not: the server's refusal is a 400 as well.
      ['CRON_TZ=europe/paris 0 9 * * *', /^cron: unknown time zone europe\/paris/],
    ];
    for (const [cron, message] of invalid) {
      const res = await ctx.call('POST', path(plan), { cron });
      expect(res.status, cron).toBe(400);
      expect(res.body.message, cron).toMatch(message);
    }
    expect((await ctx.call('POST', path(plan), {})).body.message).toMatch(/^cron: /);
    expect((await ctx.call('POST', path(plan), { cron: 5 })).body.message).toMatch(/^cron: /);
    expect(await rowCount()).toBe(0);
    expect((await ctx.call('GET', path(plan))).body.schedules).toEqual([]);
  });

  it("answers 404 for another project's plan or schedule, and for a schedule of another plan", async () => {
    const theirs = await ctx.call('POST', path(otherPlan), { cron: '0 3 * * *' }, ctx.other.token);
    expect(theirs.status).toBe(201);

    expect((await ctx.call('GET', path(otherPlan))).status).toBe(404);
    expect((await ctx.call('POST', path(otherPlan), { cron: '0 3 * * *' })).status).toBe(404);
    expect((await ctx.call('DELETE', `${path(otherPlan)}/${theirs.body.id}`)).status).toBe(404);
    // Our plan's path with their schedule's id.
    expect((await ctx.call('DELETE', `${path(plan)}/${theirs.body.id}`)).status).toBe(404);
    expect((await ctx.call('GET', '/v1/test-plans/pln_doesnotexist/schedules')).status).toBe(404);
    expect((await ctx.call('DELETE', `${path(plan)}/not-a-uuid`)).status).toBe(400);
    expect((await (await handle(theirs.body.id)).describe()).scheduleId).toBe(`plan-schedule:${theirs.body.id}`);

    expect((await ctx.call('DELETE', `${path(otherPlan)}/${theirs.body.id}`, undefined, ctx.other.token)).status).toBe(
      200,
    );
  });

  it('deletePlanSchedules removes every schedule of a plan, in Temporal and in the database', async () => {
    const doomed = await createPlan('Doomed');
    const ids = await schedules.create(ctx, path(doomed), ['0 1 * * *', '0 2 * * *']);
    const kept = (await ctx.call('POST', path(plan), { cron: '0 4 * * *' })).body.id;

    await deletePlanSchedules(ctx.db, ctx.deps.temporal, doomed.id);
    await schedules.expectGone(ctx, ids.map(temporalId));
    expect((await ctx.call('GET', path(doomed))).body.schedules).toEqual([]);
    expect((await ctx.call('GET', path(plan))).body.schedules.map((s: any) => s.id)).toEqual([kept]);
    // A Schedule already gone in Temporal (deleted by hand) does not stop the rest.
    await (await handle(kept)).delete();
    await deletePlanSchedules(ctx.db, ctx.deps.temporal, plan.id);
    expect(await rowCount()).toBe(0);
  });
});

// Once is enough: Temporal's absence is under test, not the database (each request waits out a connect timeout).
describe('test plan schedules without Temporal', () => {
  const kind = 'pglite' as const;
  const path = (plan: { shortId: string }) => `/v1/test-plans/${plan.shortId}/schedules`;
  it('answers 503 and keeps nothing when Temporal is unreachable; the list then has no next run times', async () => {
    const down = await createApiContext(kind, { temporalAddress: `127.0.0.1:${await freePort()}` });
    try {
      const res = await down.call('POST', '/v1/test-plans', { name: 'Offline' });
      const offline = { shortId: res.body.shortId as string };
      const refused = await down.call('POST', path(offline), { cron: '0 5 * * *' });
      expect(refused.status).toBe(503);
      expect(refused.body.message).toMatch(/^could not create the schedule in Temporal/);
      expect(await down.db.selectFrom('test_plan_schedules').selectAll().execute()).toEqual([]);

      // A row written while Temporal was up: listed, without next run times; its deletion waits for Temporal.
      const planId = await rowIdOf(down.db, 'test_plans', offline.shortId);
      const id = crypto.randomUUID();
      await down.db
        .insertInto('test_plan_schedules')
        .values({
          id,
          test_plan_id: planId,
          cron: '0 5 * * *',
          description: null,
          temporal_schedule_id: `plan-schedule:${id}`,
        })
        .execute();
      const list = await down.call('GET', path(offline));
      expect(list.status).toBe(200);
      expect(list.body.schedules).toEqual([
        { id, cron: '0 5 * * *', description: null, createdAt: expect.any(String) },
      ]);
      const kept = await down.call('DELETE', `${path(offline)}/${id}`);
      expect(kept.status).toBe(503);
      expect(await down.db.selectFrom('test_plan_schedules').select('id').execute()).toEqual([{ id }]);
    } finally {
      await down.close();
    }
  });
});
