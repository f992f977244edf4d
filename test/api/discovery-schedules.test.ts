import { beforeAll, describe, expect, it } from 'vitest';
import { createApiContext, databaseKinds, useApiContext } from '../support/app-context.js';
import { freePort } from '../support/net.js';
import { rowIdOf } from '../support/row-ids.js';
import { countRows } from '../support/row-counts.js';
import * as schedules from '../support/schedule-api.js';

// Discovery schedules (issue 34, item 5) through the API, on the shared Temporal dev server without a worker: the
// expressions do not fire during the test, and every test deletes what it created. The ticks themselves (a discovery
// and its news) are test/workflows/discovery-schedules.test.ts.

describe.each(databaseKinds)('discovery schedules (%s)', (kind) => {
  const ctx = useApiContext(kind);
  let app: string;
  let env: string;
  let otherApp: string;
  let otherEnv: string;
  let theirApp: string;

  const path = (a: string) => `/v1/applications/${a}/discovery-schedules`;
  const rowCount = () => countRows(ctx.db, 'discovery_schedules');
  const temporalId = (id: string) => `discovery-schedule:${id}`;
  const handle = async (id: string) => (await ctx.deps.temporal.get()).schedule.getHandle(temporalId(id));

  async function application(name: string, token = ctx.tenant.token, body: Record<string, unknown> = {}) {
    const a = await ctx.call('POST', '/v1/applications', { name, ...body }, token);
    expect(a.status).toBe(201);
    return a.body.shortId as string;
  }
  async function environment(a: string, url: string) {
    const e = await ctx.call('POST', `/v1/applications/${a}/environments`, { name: 'Local', url });
    expect(e.status).toBe(201);
    return e.body.shortId as string;
  }

  beforeAll(async () => {
    app = await application('Shop');
    env = await environment(app, 'http://shop.example.test/');
    otherApp = await application('Blog');
    otherEnv = await environment(otherApp, 'http://blog.example.test/');
    theirApp = await application('Theirs', ctx.other.token);
  });

  it('creates a schedule with its Temporal Schedule (scheduledDiscovery, SKIP), lists it, and deletes both', async () => {
    const created = await ctx.call('POST', path(app), {
      cron: '0 3 * * *',
      description: ' Nightly map ',
      environmentShortId: env,
      budget: { pages: 50, minutes: 10 },
      intent: 'the checkout',
      notify: {
        emails: ['qa@shop.example.com'],
        slack: { webhookUrl: 'https://hooks.slack.example/services/T0/B0/SECRET', channel: '#qa' },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { id } = created.body;
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      cron: '0 3 * * *',
      description: 'Nightly map',
      environmentShortId: env,
      budget: { pages: 50, minutes: 10 },
      intent: 'the checkout',
      // The webhook URL is a secret: only its host is shown.
      notify: { emails: ['qa@shop.example.com'], slack: { host: 'hooks.slack.example', channel: '#qa' } },
      nextRunTimes: expect.any(Array),
      createdAt: expect.any(String),
    });
    expect(JSON.stringify(created.body)).not.toContain('SECRET');
    expect(created.body.nextRunTimes).toHaveLength(3);
    for (const time of created.body.nextRunTimes.map((t: string) => new Date(t)))
      expect([time.getUTCHours(), time.getUTCMinutes()]).toEqual([3, 0]);

    const row = await schedules.row(ctx, 'discovery_schedules', id);
    expect(row).toMatchObject({
      project_id: ctx.tenant.projectId,
      application_id: await rowIdOf(ctx.db, 'applications', app),
      cron: '0 3 * * *',
      temporal_schedule_id: `discovery-schedule:${id}`,
    });

    const described = await schedules.expectStarts(ctx, temporalId(id), {
      workflowType: 'scheduledDiscovery',
      args: [{ projectId: ctx.tenant.projectId, scheduleId: `discovery-schedule:${id}` }],
      overlap: 'SKIP',
    });
    expect(described.memo).toMatchObject({ applicationShortId: app, description: 'Nightly map' });

    const bare = await ctx.call('POST', path(app), { cron: '@daily' });
    expect(bare.status).toBe(201);
    expect(bare.body).toMatchObject({
      description: null,
      environmentShortId: null,
      budget: null,
      intent: null,
      notify: { emails: [], slack: null },
    });
    const listed = await schedules.expectList(ctx, path(app), [
      [id, '0 3 * * *'],
      [bare.body.id, '@daily'],
    ]);
    expect(listed[0]!.nextRunTimes).toEqual(created.body.nextRunTimes);
    // Another application's list does not show them.
    expect((await ctx.call('GET', path(otherApp))).body.schedules).toEqual([]);

    expect(await ctx.call('DELETE', `${path(app)}/${id}`)).toMatchObject({ status: 200, body: { deleted: true } });
    await schedules.expectGone(ctx, [temporalId(id)]);
    expect((await ctx.call('DELETE', `${path(app)}/${id}`)).status).toBe(404);
    // Another application's path with this application's schedule: not found, and kept.
    expect((await ctx.call('DELETE', `${path(otherApp)}/${bare.body.id}`)).status).toBe(404);
    expect((await ctx.call('DELETE', `${path(app)}/${bare.body.id}`)).status).toBe(200);
    expect(await rowCount()).toBe(0);
  });

  it('deleting the application deletes its schedules, in Temporal too (the rows alone would cascade)', async () => {
    const doomed = await application('Doomed');
    const ids = await schedules.create(ctx, path(doomed), ['0 1 * * *', '0 2 * * *']);
    const kept = (await ctx.call('POST', path(app), { cron: '0 4 * * *' })).body.id;
    expect((await ctx.call('DELETE', `/v1/applications/${doomed}`)).status).toBe(200);
    await schedules.expectGone(ctx, ids.map(temporalId));
    expect((await (await handle(kept)).describe()).scheduleId).toBe(`discovery-schedule:${kept}`);
    expect((await ctx.call('DELETE', `${path(app)}/${kept}`)).status).toBe(200);
    expect(await rowCount()).toBe(0);
  });

  it('refuses what a discovery would refuse, and an invalid cron, with a 400 or 404, writing nothing', async () => {
    const refused: [string, Record<string, unknown>, number, RegExp][] = [
      [app, { cron: '61 * * * *' }, 400, /^cron: minute "61"/],
      [app, { cron: '0 0 31 2 *' }, 400, /^cron: "0 0 31 2 \*" never fires/],
      [app, {}, 400, /^cron: /],
      [app, { cron: '@daily', budget: { pages: 0 } }, 400, /^budget\.pages: /],
      [app, { cron: '@daily', intent: 'x'.repeat(501) }, 400, /^intent: /],
      [app, { cron: '@daily', notify: { emails: ['not an address'] } }, 400, /^notify\.emails\.0: /],
      [app, { cron: '@daily', notify: { slack: { webhookUrl: 'ftp://x' } } }, 400, /^notify\.slack\.webhookUrl: /],
      // An environment of another application.
      [app, { cron: '@daily', environmentShortId: otherEnv }, 404, /environment/i],
      [theirApp, { cron: '@daily' }, 404, /application/i],
    ];
    for (const [a, body, status, message] of refused) {
      const res = await ctx.call('POST', path(a), body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.message, JSON.stringify(body)).toMatch(message);
    }
    const mobile = await application('Phone app', ctx.tenant.token, { kind: 'ios' });
    const phone = await ctx.call('POST', path(mobile), { cron: '@daily' });
    expect(phone.status).toBe(400);
    expect(phone.body.message).toMatch(/discovery explores web applications/);
    expect(await rowCount()).toBe(0);
  });
});

// Once is enough: Temporal's absence is under test, not the database (each request waits out a connect timeout).
describe('discovery schedules without Temporal', () => {
  it('answers 503 and keeps nothing when Temporal is unreachable', async () => {
    const down = await createApiContext('pglite', { temporalAddress: `127.0.0.1:${await freePort()}` });
    try {
      const a = (await down.call('POST', '/v1/applications', { name: 'Offline' })).body.shortId;
      const refused = await down.call('POST', `/v1/applications/${a}/discovery-schedules`, { cron: '0 5 * * *' });
      expect(refused.status).toBe(503);
      expect(refused.body.message).toMatch(/^could not create the schedule in Temporal/);
      expect(await down.db.selectFrom('discovery_schedules').selectAll().execute()).toEqual([]);
    } finally {
      await down.close();
    }
  });
});
