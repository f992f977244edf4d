import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { requireTestPlan } from '../../src/services/test-plans.js';
import { NotFoundError } from '../../src/domain/errors.js';
import { seedProject } from '../../src/db/queries/admin.js';
import { databaseKinds, useApiContext } from '../support/app-context.js';
import { expectHiddenFromCaller } from '../support/unknown-ids.js';
import { rowIdOf } from '../support/row-ids.js';

describe.each(databaseKinds)('test plans (%s)', (kind) => {
  const ctx = useApiContext(kind);

  /** An application with one environment, through the API, as `token`'s project. */
  async function application(name: string, token = ctx.tenant.token) {
    const app = (await ctx.call('POST', '/v1/applications', { name }, token)).body;
    const env = (
      await ctx.call(
        'POST',
        `/v1/applications/${app.shortId}/environments`,
        { name: 'Staging', url: `https://${app.shortId}.test` },
        token,
      )
    ).body;
    const row = await ctx.db
      .selectFrom('applications')
      .select(['id', 'project_id'])
      .where('short_id', '=', app.shortId)
      .executeTakeFirstOrThrow();
    return { shortId: app.shortId as string, id: row.id, projectId: row.project_id, envShortId: env.shortId as string };
  }

  /** Test cases have no API yet: insert the row directly. */
  async function testCase(app: { id: string; projectId: string }, name: string): Promise<string> {
    const id = randomUUID();
    await ctx.db
      .insertInto('test_cases')
      .values({ id, project_id: app.projectId, application_id: app.id, name, goal: `Goal of ${name}` })
      .execute();
    return id;
  }

  const planNames = async (token = ctx.tenant.token) =>
    (await ctx.call('GET', '/v1/test-plans', undefined, token)).body.testPlans.map(
      (p: { name: string }) => p.name,
    ) as string[];

  it('creates a plan with test cases, per-application parameters and notifications, and reads it back', async () => {
    const shop = await application('Shop');
    const admin = await application('Admin');
    const preset = (
      await ctx.call('POST', '/v1/device-presets', {
        name: 'Phone',
        viewport: { width: 390, height: 844 },
        isMobile: true,
      })
    ).body;
    const checkout = await testCase(shop, 'Checkout');
    const login = await testCase(admin, 'Admin login');

    const created = await ctx.call('POST', '/v1/test-plans', {
      name: 'Smoke',
      description: 'Runs on every deploy',
      owner: 'qa@shop.test',
      testCaseIds: [login, checkout],
      applications: [
        { applicationShortId: shop.shortId, environmentShortId: shop.envShortId, devicePresetShortId: preset.shortId },
        { applicationShortId: admin.shortId, environmentShortId: admin.envShortId },
      ],
      isDefault: true,
      notifications: {
        email: { recipients: ['qa@shop.test', 'dev@shop.test', 'QA@shop.test'], notifyOn: 'always' },
        slack: { webhookUrl: 'https://hooks.slack.test/services/T0/B0/x', channel: '#qa' },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.shortId).toMatch(/^pln(-.+_.+|_.+)$/);
    expect(created.body).toEqual({
      shortId: created.body.shortId,
      name: 'Smoke',
      description: 'Runs on every deploy',
      owner: 'qa@shop.test',
      isDefault: true,
      testCases: [
        { id: login, name: 'Admin login', applicationShortId: admin.shortId },
        { id: checkout, name: 'Checkout', applicationShortId: shop.shortId },
      ],
      applications: [
        { applicationShortId: shop.shortId, environmentShortId: shop.envShortId, devicePresetShortId: preset.shortId },
        { applicationShortId: admin.shortId, environmentShortId: admin.envShortId, devicePresetShortId: null },
      ],
      notifications: {
        // One row per recipient, duplicates dropped (case-insensitively), returned in alphabetical order.
        email: { recipients: ['dev@shop.test', 'qa@shop.test'], notifyOn: 'always' },
        slack: { webhookUrl: 'https://hooks.slack.test/services/T0/B0/x', channel: '#qa', notifyOn: 'failure' },
      },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });

    const got = await ctx.call('GET', `/v1/test-plans/${created.body.shortId}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);
    const list = await ctx.call('GET', '/v1/test-plans');
    expect(list.status).toBe(200);
    expect(list.body.testPlans).toContainEqual(created.body);

    const project = await ctx.db
      .selectFrom('projects')
      .select('default_test_plan_id')
      .where('id', '=', ctx.tenant.projectId)
      .executeTakeFirstOrThrow();
    const planId = await rowIdOf(ctx.db, 'test_plans', created.body.shortId);
    expect(project.default_test_plan_id).toBe(planId);
    const emailRows = await ctx.db
      .selectFrom('test_plan_notifications')
      .select('target')
      .where('test_plan_id', '=', planId)
      .where('channel', '=', 'email')
      .execute();
    expect(emailRows.map((r) => r.target).sort()).toEqual(['dev@shop.test', 'qa@shop.test']);
  });

  it('updates a plan: lists are replaced, absent fields and notification channels kept', async () => {
    const shop = await application('Store');
    const second = await ctx.call('POST', `/v1/applications/${shop.shortId}/environments`, {
      name: 'Production',
      url: 'https://store.test',
    });
    const [a, b, c] = [await testCase(shop, 'A'), await testCase(shop, 'B'), await testCase(shop, 'C')];
    const plan = (
      await ctx.call('POST', '/v1/test-plans', {
        name: 'Nightly',
        description: 'Every night',
        testCaseIds: [a, b],
        applications: [{ applicationShortId: shop.shortId, environmentShortId: shop.envShortId }],
        notifications: { email: { recipients: ['night@shop.test'] }, slack: { webhookUrl: 'https://chat.test/hook' } },
      })
    ).body;
    expect(plan.notifications.email).toEqual({ recipients: ['night@shop.test'], notifyOn: 'failure' });

    const path = `/v1/test-plans/${plan.shortId}`;
    const updated = await ctx.call('PATCH', path, {
      name: 'Nightly full',
      description: null,
      testCaseIds: [c, a],
      applications: [
        { applicationShortId: shop.shortId, environmentShortId: second.body.shortId, devicePresetShortId: null },
      ],
      notifications: { email: null },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      shortId: plan.shortId,
      name: 'Nightly full',
      description: null,
      testCases: [
        { id: c, name: 'C', applicationShortId: shop.shortId },
        { id: a, name: 'A', applicationShortId: shop.shortId },
      ],
      applications: [
        { applicationShortId: shop.shortId, environmentShortId: second.body.shortId, devicePresetShortId: null },
      ],
      notifications: {
        email: null,
        slack: { webhookUrl: 'https://chat.test/hook', channel: null, notifyOn: 'failure' },
      },
      createdAt: plan.createdAt,
    });
    expect(Date.parse(updated.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(plan.updatedAt));
    expect((await ctx.call('GET', path)).body).toEqual(updated.body);

    // A PATCH naming only the owner keeps every list as it was.
    const owned = await ctx.call('PATCH', path, { owner: 'night-shift' });
    expect(owned.body).toEqual({ ...updated.body, owner: 'night-shift', updatedAt: owned.body.updatedAt });

    // Empty lists clear them.
    const emptied = await ctx.call('PATCH', path, {
      testCaseIds: [],
      applications: [],
      notifications: { slack: null },
    });
    expect(emptied.body).toMatchObject({
      testCases: [],
      applications: [],
      notifications: { email: null, slack: null },
    });
  });

  it("keeps one default plan per project: the first one, then whichever is set, none after it's deleted", async () => {
    // A project of its own, so the other tests' plans do not matter here.
    const tenant = await seedProject(ctx.db, { organization: 'Initech', project: 'Defaults' });
    const as = (method: string, path: string, body?: unknown) => ctx.call(method, path, body, tenant.token);
    const defaultPlanId = async () =>
      (
        await ctx.db
          .selectFrom('projects')
          .select('default_test_plan_id')
          .where('id', '=', tenant.projectId)
          .executeTakeFirstOrThrow()
      ).default_test_plan_id;

    const first = (await as('POST', '/v1/test-plans', { name: 'First' })).body;
    expect(first.isDefault).toBe(true);
    const second = (await as('POST', '/v1/test-plans', { name: 'Second' })).body;
    expect(second.isDefault).toBe(false);

    const moved = await as('PATCH', `/v1/test-plans/${second.shortId}`, { isDefault: true });
    expect(moved.body.isDefault).toBe(true);
    expect((await as('GET', `/v1/test-plans/${first.shortId}`)).body.isDefault).toBe(false);

    const third = (await as('POST', '/v1/test-plans', { name: 'Third', isDefault: true })).body;
    expect(third.isDefault).toBe(true);
    const flags = (await as('GET', '/v1/test-plans')).body.testPlans.map((p: { name: string; isDefault: boolean }) => [
      p.name,
      p.isDefault,
    ]);
    expect(flags).toEqual([
      ['First', false],
      ['Second', false],
      ['Third', true],
    ]);

    // Unsetting a plan that is not the default changes nothing; unsetting the default leaves none.
    await as('PATCH', `/v1/test-plans/${first.shortId}`, { isDefault: false });
    expect((await as('GET', `/v1/test-plans/${third.shortId}`)).body.isDefault).toBe(true);
    await as('PATCH', `/v1/test-plans/${third.shortId}`, { isDefault: false });
    expect(await defaultPlanId()).toBeNull();

    await as('PATCH', `/v1/test-plans/${second.shortId}`, { isDefault: true });
    expect((await as('DELETE', `/v1/test-plans/${second.shortId}`)).body).toEqual({ deleted: true });
    expect(await defaultPlanId()).toBeNull();
    expect((await as('GET', '/v1/test-plans')).body.testPlans.some((p: { isDefault: boolean }) => p.isDefault)).toBe(
      false,
    );

    // A plan created explicitly as not default stays so even when the project has none.
    expect((await as('POST', '/v1/test-plans', { name: 'Fourth', isDefault: false })).body.isDefault).toBe(false);
    expect(await defaultPlanId()).toBeNull();
  });

  it('validates input with a message naming the field, and writes nothing', async () => {
    const shop = await application('Validated');
    const before = await planNames();
    const entry = { applicationShortId: shop.shortId, environmentShortId: shop.envShortId };
    const cases: [unknown, RegExp][] = [
      [{ description: 'no name' }, /name/],
      [{ name: 'N'.repeat(121) }, /name/],
      [
        { name: 'P', applications: [{ applicationShortId: shop.shortId }] },
        /applications\.0\.environmentShortId: environment is required and cannot be cleared/,
      ],
      [
        { name: 'P', applications: [{ ...entry, environmentShortId: null }] },
        /applications\.0\.environmentShortId: environment is required and cannot be cleared/,
      ],
      [{ name: 'P', applications: [{ ...entry, environmentShortId: 'app_x' }] }, /applications\.0\.environmentShortId/],
      [{ name: 'P', applications: [entry, entry] }, /applications\.1\.applicationShortId: .*listed more than once/],
      [{ name: 'P', testCaseIds: ['not-a-uuid'] }, /testCaseIds\.0/],
      [{ name: 'P', testCaseIds: [randomUUID()].flatMap((id) => [id, id]) }, /testCaseIds\.1: .*listed more than once/],
      [
        { name: 'P', notifications: { email: { recipients: ['not an email'] } } },
        /notifications\.email\.recipients\.0/,
      ],
      [{ name: 'P', notifications: { email: { recipients: [] } } }, /notifications\.email\.recipients/],
      [
        {
          name: 'P',
          notifications: { email: { recipients: Array.from({ length: 21 }, (_, i) => `u${i}@shop.test`) } },
        },
        /notifications\.email\.recipients/,
      ],
      [
        { name: 'P', notifications: { email: { recipients: ['a@shop.test'], notifyOn: 'sometimes' } } },
        /notifications\.email\.notifyOn/,
      ],
      [
        { name: 'P', notifications: { slack: { webhookUrl: 'ftp://hooks.test/x' } } },
        /notifications\.slack\.webhookUrl/,
      ],
      [{ name: 'P', notifications: { slack: { channel: '#qa' } } }, /notifications\.slack\.webhookUrl/],
      [{ name: 'P', isDefault: 'yes' }, /isDefault/],
    ];
    for (const [body, message] of cases) {
      const res = await ctx.call('POST', '/v1/test-plans', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    expect(await planNames()).toEqual(before);

    const plan = (await ctx.call('POST', '/v1/test-plans', { name: 'Kept', applications: [entry] })).body;
    const path = `/v1/test-plans/${plan.shortId}`;
    for (const body of [
      { name: 'Changed', applications: [{ applicationShortId: shop.shortId }] },
      { name: 'Changed', applications: [{ ...entry, environmentShortId: null }] },
    ]) {
      const res = await ctx.call('PATCH', path, body);
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/environment is required and cannot be cleared/);
    }
    expect((await ctx.call('GET', path)).body).toEqual(plan);
  });

  it('answers 404 for references that are unknown or belong to another project, and writes nothing', async () => {
    const shop = await application('Referenced');
    const other = await application('Sibling');
    const theirs = await application('Theirs', ctx.other.token);
    const theirCase = await testCase(theirs, 'Their case');
    const theirPreset = (
      await ctx.call(
        'POST',
        '/v1/device-presets',
        { name: 'Their phone', viewport: { width: 390, height: 844 } },
        ctx.other.token,
      )
    ).body;
    const mine = await testCase(shop, 'Mine');
    const before = await planNames();
    const unknownCase = randomUUID();

    const cases: [unknown, string][] = [
      [{ name: 'P', testCaseIds: [mine, unknownCase] }, `Test case not found: ${unknownCase}`],
      [{ name: 'P', testCaseIds: [theirCase] }, `Test case not found: ${theirCase}`],
      [
        { name: 'P', applications: [{ applicationShortId: 'app_doesnotexist', environmentShortId: shop.envShortId }] },
        'Application not found',
      ],
      [
        { name: 'P', applications: [{ applicationShortId: theirs.shortId, environmentShortId: theirs.envShortId }] },
        'Application not found',
      ],
      // An environment of the project, but of another application.
      [
        { name: 'P', applications: [{ applicationShortId: shop.shortId, environmentShortId: other.envShortId }] },
        'Environment not found',
      ],
      [
        { name: 'P', applications: [{ applicationShortId: shop.shortId, environmentShortId: theirs.envShortId }] },
        'Environment not found',
      ],
      [
        {
          name: 'P',
          applications: [
            {
              applicationShortId: shop.shortId,
              environmentShortId: shop.envShortId,
              devicePresetShortId: theirPreset.shortId,
            },
          ],
        },
        'Device preset not found',
      ],
    ];
    for (const [body, message] of cases) {
      const res = await ctx.call('POST', '/v1/test-plans', body);
      expect(res.status, JSON.stringify(body)).toBe(404);
      expect(res.body.message).toBe(message);
    }
    expect(await planNames()).toEqual(before);

    // A PATCH with one bad reference changes nothing, not even its valid fields.
    const plan = (
      await ctx.call('POST', '/v1/test-plans', {
        name: 'Stable',
        testCaseIds: [mine],
        applications: [{ applicationShortId: shop.shortId, environmentShortId: shop.envShortId }],
      })
    ).body;
    const path = `/v1/test-plans/${plan.shortId}`;
    const rejected = await ctx.call('PATCH', path, {
      name: 'Renamed',
      owner: 'someone',
      testCaseIds: [],
      notifications: { slack: { webhookUrl: 'https://chat.test/hook' } },
      applications: [{ applicationShortId: shop.shortId, environmentShortId: other.envShortId }],
    });
    expect(rejected.status).toBe(404);
    expect(rejected.body.message).toBe('Environment not found');
    expect((await ctx.call('GET', path)).body).toEqual(plan);
  });

  it('follows what happens to the things it references', async () => {
    const shop = await application('Followed');
    const preset = (
      await ctx.call('POST', '/v1/device-presets', { name: 'Tablet', viewport: { width: 820, height: 1180 } })
    ).body;
    const [kept, removed] = [await testCase(shop, 'Kept'), await testCase(shop, 'Removed')];
    const plan = (
      await ctx.call('POST', '/v1/test-plans', {
        name: 'Followed',
        testCaseIds: [kept, removed],
        applications: [
          {
            applicationShortId: shop.shortId,
            environmentShortId: shop.envShortId,
            devicePresetShortId: preset.shortId,
          },
        ],
      })
    ).body;
    const path = `/v1/test-plans/${plan.shortId}`;

    // The plan's environment cannot be deleted while the plan uses it.
    const envDelete = await ctx.call('DELETE', `/v1/applications/${shop.shortId}/environments/${shop.envShortId}`);
    expect(envDelete.status).toBe(409);
    expect((await ctx.call('GET', path)).body.applications[0].environmentShortId).toBe(shop.envShortId);

    // A deleted preset falls back to the application default; a deleted test case leaves the plan.
    await ctx.call('DELETE', `/v1/device-presets/${preset.shortId}`);
    await ctx.db.deleteFrom('test_cases').where('id', '=', removed).execute();
    const after = (await ctx.call('GET', path)).body;
    expect(after.applications).toEqual([
      { applicationShortId: shop.shortId, environmentShortId: shop.envShortId, devicePresetShortId: null },
    ]);
    expect(after.testCases.map((t: { id: string }) => t.id)).toEqual([kept]);

    // Deleting the plan removes its lists with it.
    const planId = await rowIdOf(ctx.db, 'test_plans', plan.shortId);
    expect((await ctx.call('DELETE', path)).body).toEqual({ deleted: true });
    expect((await ctx.call('GET', path)).status).toBe(404);
    expect(
      await ctx.db
        .selectFrom('test_plan_test_cases')
        .select('test_case_id')
        .where('test_plan_id', '=', planId)
        .execute(),
    ).toEqual([]);
    expect(
      await ctx.db
        .selectFrom('test_plan_applications')
        .select('application_id')
        .where('test_plan_id', '=', planId)
        .execute(),
    ).toEqual([]);
  });

  it('requireTestPlan (used by the run and schedule endpoints) is scoped to the project', async () => {
    const plan = (await ctx.call('POST', '/v1/test-plans', { name: 'Required' })).body;
    const found = await requireTestPlan(ctx, ctx.tenant.projectId, plan.shortId);
    expect(found).toMatchObject({ shortId: plan.shortId, name: 'Required' });
    expect(found.id).toMatch(/^[0-9a-f-]{36}$/);
    const elsewhere = await requireTestPlan(ctx, ctx.other.projectId, plan.shortId).catch((err: unknown) => err);
    expect(elsewhere).toBeInstanceOf(NotFoundError);
    expect(elsewhere).toMatchObject({ message: 'Test plan not found' });
  });

  it("hides another project's plans (404 on every route) and lists only the caller's", async () => {
    const theirApp = await application('Their shop', ctx.other.token);
    const theirCase = await testCase(theirApp, 'Their case');
    const theirs = (
      await ctx.call(
        'POST',
        '/v1/test-plans',
        {
          name: 'Their plan',
          testCaseIds: [theirCase],
          applications: [{ applicationShortId: theirApp.shortId, environmentShortId: theirApp.envShortId }],
        },
        ctx.other.token,
      )
    ).body;
    expect(theirs.testCases).toHaveLength(1);
    const still = await expectHiddenFromCaller(ctx, {
      path: '/v1/test-plans',
      shortId: theirs.shortId,
      message: 'Test plan not found',
      patches: [{ name: 'Mine now' }, { isDefault: true }],
    });
    expect(await planNames()).not.toContain('Their plan');
    expect(still).toEqual(theirs);
    const mine = await ctx.db
      .selectFrom('projects')
      .select('default_test_plan_id')
      .where('id', '=', ctx.tenant.projectId)
      .executeTakeFirstOrThrow();
    const theirId = await rowIdOf(ctx.db, 'test_plans', theirs.shortId);
    expect(mine.default_test_plan_id).not.toBe(theirId);
  });
});
