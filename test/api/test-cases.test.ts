import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { seedProject } from '../../src/db/queries/admin.js';
import { createApiContext, databaseKinds, terminateBurnIns, useApiContext } from '../support/app-context.js';
import { countRows } from '../support/row-counts.js';
import { expectHiddenFromCaller } from '../support/unknown-ids.js';

describe.each(databaseKinds)('test cases (%s)', (kind) => {
  const ctx = useApiContext(kind);
  /** Every test case created through the API: its burn-in workflow is terminated after the file. */
  const created: string[] = [];

  afterAll(async () => {
    await terminateBurnIns(ctx, created);
  });

  async function application(name: string, token = ctx.tenant.token) {
    const res = await ctx.call('POST', '/v1/applications', { name }, token);
    expect(res.status).toBe(201);
    return res.body.shortId as string;
  }

  /** POST /v1/test-cases; remembers what was created for cleanup. */
  async function create(body: Record<string, unknown>, token = ctx.tenant.token) {
    const res = await ctx.call('POST', '/v1/test-cases', body, token);
    if (res.status === 200) created.push(res.body.testCase.id);
    return res;
  }

  async function testCase(
    applicationShortId: string,
    name: string,
    extra: Record<string, unknown> = {},
    token = ctx.tenant.token,
  ): Promise<string> {
    const res = await create({ name, goal: `Goal of ${name}`, applicationShortId, ...extra }, token);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.testCase.id as string;
  }

  const rowCount = (projectId = ctx.tenant.projectId) => countRows(ctx.db, 'test_cases', projectId);

  const markGenerated = (id: string) =>
    ctx.db.updateTable('test_cases').set({ generation_status: 'COMPLETED' }).where('id', '=', id).execute();

  it('creates a disabled test case in GENERATING and starts its burn-in', async () => {
    const shop = await application('Shop');
    const res = await create({
      name: '  Checkout with a saved card  ',
      goal: 'Buy the first product',
      applicationShortId: shop,
    });
    expect(res.status).toBe(200);
    const id = res.body.testCase.id as string;
    expect(res.body).toEqual({
      success: true,
      testCase: { id, name: 'Checkout with a saved card', url: `https://app.proctor.test/test-cases/${id}` },
    });
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

    const row = await ctx.db.selectFrom('test_cases').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      project_id: ctx.tenant.projectId,
      is_enabled: false,
      generation_status: 'GENERATING',
      failure_reason: null,
      steps: null,
      labels: [],
      config_ids: [],
      wait_for_test_case_ids: [],
      resume_from_test_case_id: null,
    });

    const client = await ctx.deps.temporal.get();
    const handle = client.workflow.getHandle(`burn-in:${id}`);
    const description = await handle.describe();
    expect(description.type).toBe('burnIn');
    expect(description.taskQueue).toBe(ctx.deps.temporal.taskQueue);
    await handle.terminate('test done');
  });

  it('stores every optional field and returns it from GET', async () => {
    const shop = await application('Full');
    const config = (await ctx.call('POST', '/v1/configs', { name: 'LOGIN_EMAIL', value: 'qa@shop.test' })).body;
    const secret = (await ctx.call('POST', '/v1/configs', { name: 'LOGIN_PASSWORD', value: 'hunter2', isSecret: true }))
      .body;
    const scenario = (
      await ctx.call('POST', '/v1/scenarios', { name: 'Full cart', instructions: 'Add three products first' })
    ).body;
    const login = await testCase(shop, 'Log in');
    const search = await testCase(shop, 'Search');

    const res = await create({
      name: 'Checkout',
      goal: 'Pay for the cart',
      applicationShortId: shop,
      expectedResult: 'An order number is shown',
      configShortIds: [secret.shortId, config.shortId],
      scenarioShortId: scenario.shortId,
      resumeFromDependencyProjectTestCaseId: login.toUpperCase(),
      waitForDependenciesProjectTestCaseIds: [search],
      labels: ['smoke', ' checkout '],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const id = res.body.testCase.id;

    const got = await ctx.call('GET', `/v1/test-cases/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      id,
      name: 'Checkout',
      isEnabled: false,
      labels: ['smoke', 'checkout'],
      classification: 'functional',
      applicationShortId: shop,
      applicationName: 'Full',
      goal: 'Pay for the cart',
      createdAt: expect.any(String),
      generationStatus: 'GENERATING',
      expectedResult: 'An order number is shown',
      failureReason: null,
      configShortIds: [secret.shortId, config.shortId],
      scenarioShortId: scenario.shortId,
      resumeFromDependencyProjectTestCaseId: login,
      waitForDependenciesProjectTestCaseIds: [search],
      steps: null,
      notCovered: [],
      // Not burned in yet: no verifying replay.
      recordingCheck: null,
      quarantined: false,
      flakeRate: 0,
      recentRuns: 0,
      updatedAt: expect.any(String),
      healProposals: [],
      // No burn-in call has been made yet (the worker is not polled here).
      usage: { calls: 0, promptTokens: 0, completionTokens: 0, cachedTokens: 0, estimated: false },
    });
    expect((await ctx.call('GET', `/v1/test-cases/${id.toUpperCase()}`)).body).toEqual(got.body);

    // Recorded steps come back with their version.
    const steps = [{ action: 'click', locator: "getByRole('button', { name: 'Pay' })", description: 'Pay' }];
    await ctx.db
      .updateTable('test_cases')
      .set({ steps: JSON.stringify(steps), steps_version: 2 })
      .where('id', '=', id)
      .execute();
    expect((await ctx.call('GET', `/v1/test-cases/${id}`)).body.steps).toEqual({ version: 2, steps });
  });

  it('rejects invalid bodies with a message naming the field, and writes nothing', async () => {
    const shop = await application('Validated');
    const valid = { name: 'Valid', goal: 'Do it', applicationShortId: shop };
    const id = randomUUID();
    const before = await rowCount();
    const cases: [unknown, RegExp][] = [
      [{ goal: 'x', applicationShortId: shop }, /^name:/],
      [{ ...valid, name: '   ' }, /^name:/],
      [{ ...valid, name: 'N'.repeat(81) }, /^name:/],
      [{ ...valid, goal: undefined }, /^goal:/],
      [{ ...valid, goal: ' ' }, /^goal:/],
      [{ ...valid, applicationShortId: undefined }, /^applicationShortId:/],
      [{ ...valid, applicationShortId: 'env_abc' }, /^applicationShortId: must be a application short id/],
      [{ ...valid, configShortIds: ['nope'] }, /^configShortIds\.0:/],
      [{ ...valid, configShortIds: ['cfg_a', 'cfg_a'] }, /^configShortIds\.1: config cfg_a is listed more than once/],
      [{ ...valid, scenarioShortId: 'cfg_a' }, /^scenarioShortId:/],
      [{ ...valid, resumeFromDependencyProjectTestCaseId: 'not-a-uuid' }, /^resumeFromDependencyProjectTestCaseId:/],
      [{ ...valid, waitForDependenciesProjectTestCaseIds: ['x'] }, /^waitForDependenciesProjectTestCaseIds\.0:/],
      [
        { ...valid, waitForDependenciesProjectTestCaseIds: [id, id.toUpperCase()] },
        /^waitForDependenciesProjectTestCaseIds\.1: .*listed more than once/,
      ],
      [{ ...valid, labels: ['a,b'] }, /^labels\.0: must not contain a comma/],
      [{ ...valid, labels: ['smoke', 'smoke'] }, /^labels\.1: label smoke is listed more than once/],
      [{ ...valid, labels: [''] }, /^labels\.0:/],
    ];
    for (const [body, message] of cases) {
      const res = await create(body as Record<string, unknown>);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    expect(await rowCount()).toBe(before);
  });

  it("answers 404 for unknown or other projects' references and 400 for broken dependency rules, writing and starting nothing", async () => {
    const shop = await application('Referenced');
    const admin = await application('Admin');
    const theirApp = await application('Theirs', ctx.other.token);
    const theirConfig = (await ctx.call('POST', '/v1/configs', { name: 'THEIR_SECRET', value: 'x' }, ctx.other.token))
      .body.shortId;
    const theirScenario = (
      await ctx.call('POST', '/v1/scenarios', { name: 'Theirs', instructions: 'x' }, ctx.other.token)
    ).body.shortId;
    const theirCase = await testCase(theirApp, 'Their case', {}, ctx.other.token);
    const myConfig = (await ctx.call('POST', '/v1/configs', { name: 'MINE', value: 'x' })).body.shortId;
    const mine = await testCase(shop, 'Mine');
    const adminCase = await testCase(admin, 'Admin login');
    const unknown = randomUUID();
    const valid = { name: 'Rejected', goal: 'Never created', applicationShortId: shop };
    const before = await rowCount();
    const startedBefore = created.length;

    const notFound: [Record<string, unknown>, string][] = [
      [{ ...valid, applicationShortId: 'app_doesnotexist' }, 'Application not found'],
      [{ ...valid, applicationShortId: theirApp }, 'Application not found'],
      [{ ...valid, scenarioShortId: 'scenario_doesnotexist' }, 'Scenario not found'],
      [{ ...valid, scenarioShortId: theirScenario }, 'Scenario not found'],
      [{ ...valid, configShortIds: [myConfig, 'cfg_doesnotexist'] }, 'Config not found: cfg_doesnotexist'],
      [{ ...valid, configShortIds: [theirConfig] }, `Config not found: ${theirConfig}`],
      [{ ...valid, resumeFromDependencyProjectTestCaseId: unknown }, `Test case not found: ${unknown}`],
      [{ ...valid, waitForDependenciesProjectTestCaseIds: [mine, unknown] }, `Test case not found: ${unknown}`],
      [{ ...valid, waitForDependenciesProjectTestCaseIds: [theirCase] }, `Test case not found: ${theirCase}`],
      [{ ...valid, resumeFromDependencyProjectTestCaseId: theirCase }, `Test case not found: ${theirCase}`],
    ];
    for (const [body, message] of notFound) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).toBe(404);
      expect(res.body).toEqual({ message });
    }

    // Browser state carries over only within one application.
    const crossApp = await create({ ...valid, resumeFromDependencyProjectTestCaseId: adminCase });
    expect(crossApp.status).toBe(400);
    expect(crossApp.body.message).toMatch(
      /^resumeFromDependencyProjectTestCaseId: Admin login \(.+\) belongs to another application/,
    );
    // Waiting for a test case of another application is fine.
    await testCase(shop, 'Waits for admin', { waitForDependenciesProjectTestCaseIds: [adminCase] });

    expect(await rowCount()).toBe(before + 1);
    expect(created.length).toBe(startedBefore + 1);
  });

  it('keeps the test case as FAILED and answers 503 when generation cannot start', async () => {
    // Nothing listens on port 1: the workflow service is "down".
    const down = await createApiContext(kind, { temporalAddress: '127.0.0.1:1' });
    try {
      const shop = (await down.call('POST', '/v1/applications', { name: 'Offline' })).body.shortId;
      const res = await down.call('POST', '/v1/test-cases', {
        name: 'Offline',
        goal: 'Anything',
        applicationShortId: shop,
      });
      expect(res.status).toBe(503);
      expect(res.body.message).toMatch(
        /^Test case [0-9a-f-]{36} was saved, but its generation could not start \(.+\); it is marked FAILED$/,
      );
      const id = /^Test case ([0-9a-f-]{36})/.exec(res.body.message)![1]!;
      const got = await down.call('GET', `/v1/test-cases/${id}`);
      expect(got.body).toMatchObject({
        generationStatus: 'FAILED',
        isEnabled: false,
        failureReason: expect.stringMatching(/^could not start generation: .+/),
      });
    } finally {
      await down.close();
    }
  });

  it('lists with filters (application, ALL labels, enabled), newest first, paginated with a total', async () => {
    const tenant = await seedProject(ctx.db, { organization: 'Listing', project: 'List' });
    const as = (method: string, path: string, body?: unknown) => ctx.call(method, path, body, tenant.token);
    const web = await application('Web', tenant.token);
    const mobile = await application('Mobile', tenant.token);
    const ids: Record<string, string> = {};
    for (const [name, app, labels] of [
      ['one', web, ['smoke', 'checkout']],
      ['two', web, ['smoke']],
      ['three', mobile, ['checkout', 'smoke', 'slow']],
      ['four', mobile, []],
    ] as const) {
      ids[name] = await testCase(app, name, { labels }, tenant.token);
    }
    await markGenerated(ids.two!);
    expect((await as('PATCH', `/v1/test-cases/${ids.two}`, { isEnabled: true })).status).toBe(200);

    const names = async (query: string) => {
      const res = await as('GET', `/v1/test-cases${query}`);
      expect(res.status, query).toBe(200);
      return res.body.testCases.map((t: { name: string }) => t.name);
    };
    const all = await as('GET', '/v1/test-cases');
    expect(all.body).toMatchObject({ total: 4, limit: 50, offset: 0 });
    expect(all.body.testCases.map((t: { name: string }) => t.name)).toEqual(['four', 'three', 'two', 'one']);
    expect(all.body.testCases[1]).toEqual({
      id: ids.three,
      name: 'three',
      isEnabled: false,
      labels: ['checkout', 'smoke', 'slow'],
      classification: 'functional',
      applicationShortId: mobile,
      applicationName: 'Mobile',
      goal: 'Goal of three',
      createdAt: expect.any(String),
      generationStatus: 'GENERATING',
    });

    expect(await names(`?applicationShortId=${web}`)).toEqual(['two', 'one']);
    expect(await names('?labels=smoke')).toEqual(['three', 'two', 'one']);
    expect(await names('?labels=smoke,checkout')).toEqual(['three', 'one']);
    expect(await names('?labels=checkout,%20smoke,,')).toEqual(['three', 'one']);
    expect(await names('?labels=smoke,nothing')).toEqual([]);
    expect(await names('?labels=Smoke')).toEqual([]);
    expect(await names('?isEnabled=true')).toEqual(['two']);
    expect(await names('?isEnabled=false')).toEqual(['four', 'three', 'one']);
    expect(await names(`?applicationShortId=${mobile}&labels=smoke&isEnabled=false`)).toEqual(['three']);

    const page = await as('GET', '/v1/test-cases?limit=2&offset=1');
    expect(page.body).toMatchObject({ total: 4, limit: 2, offset: 1 });
    expect(page.body.testCases.map((t: { name: string }) => t.name)).toEqual(['three', 'two']);
    const past = await as('GET', '/v1/test-cases?labels=smoke&offset=10');
    expect(past.body).toEqual({ testCases: [], total: 3, limit: 50, offset: 10 });
    // Up to 1000 a page, the CLI's range.
    const big = await as('GET', '/v1/test-cases?limit=1000');
    expect(big.status).toBe(200);
    expect(big.body).toMatchObject({ total: 4, limit: 1000, offset: 0 });
    expect(big.body.testCases).toHaveLength(4);

    for (const [query, message] of [
      ['?limit=1001', /^limit:/],
      ['?limit=0', /^limit:/],
      ['?limit=ten', /^limit:/],
      ['?offset=-1', /^offset:/],
      ['?isEnabled=yes', /^isEnabled:/],
      ['?applicationShortId=nope', /^applicationShortId:/],
    ] as const) {
      const res = await as('GET', `/v1/test-cases${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    // Unknown, or another project's, application: a 404 as on creation, not an empty list.
    for (const app of ['app_doesnotexist', await application('Not theirs')]) {
      const res = await as('GET', `/v1/test-cases?applicationShortId=${app}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Application not found' });
    }
  });

  it('gets one test case: 400 for a malformed id, 404 for an unknown one', async () => {
    const bad = await ctx.call('GET', '/v1/test-cases/not-a-uuid');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^testCaseId:/);
    const missing = await ctx.call('GET', `/v1/test-cases/${randomUUID()}`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: 'Test case not found' });
  });

  it('updates fields; enabling waits for recorded steps', async () => {
    const shop = await application('Patched');
    const id = await testCase(shop, 'Editable', { expectedResult: 'Done', labels: ['old'] });
    const path = `/v1/test-cases/${id}`;
    const original = (await ctx.call('GET', path)).body;

    const refused = await ctx.call('PATCH', path, { isEnabled: true, name: 'Not applied' });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/test case has no recorded steps yet/);
    expect((await ctx.call('GET', path)).body).toEqual(original);

    const updated = await ctx.call('PATCH', path, {
      name: 'Edited',
      goal: 'A new goal',
      expectedResult: null,
      labels: ['new', 'smoke'],
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({
      ...original,
      name: 'Edited',
      goal: 'A new goal',
      expectedResult: null,
      labels: ['new', 'smoke'],
      updatedAt: updated.body.updatedAt,
    });
    // A new goal does not regenerate: the status and the steps are untouched.
    expect(updated.body.generationStatus).toBe('GENERATING');
    expect((await ctx.call('GET', path)).body).toEqual(updated.body);

    await markGenerated(id);
    const enabled = await ctx.call('PATCH', path, { isEnabled: true });
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ isEnabled: true, generationStatus: 'COMPLETED', name: 'Edited' });
    expect((await ctx.call('PATCH', path, { isEnabled: false })).body.isEnabled).toBe(false);
    expect((await ctx.call('PATCH', path, { expectedResult: '' })).body.expectedResult).toBeNull();
    expect((await ctx.call('PATCH', path, {})).status).toBe(200);

    for (const [body, message] of [
      [{ name: '' }, /^name:/],
      [{ isEnabled: 'yes' }, /^isEnabled:/],
      [{ goal: null }, /^goal:/],
      [{ labels: ['a,b'] }, /^labels\.0:/],
    ] as const) {
      const res = await ctx.call('PATCH', path, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toMatch(message);
    }
  });

  it('changes dependencies with the creation rules, and refuses a cycle naming it', async () => {
    const shop = await application('Graph');
    const admin = await application('Graph admin');
    const theirCase = await testCase(await application('Their graph', ctx.other.token), 'Theirs', {}, ctx.other.token);
    const login = await testCase(shop, 'Login');
    const cart = await testCase(shop, 'Cart', { resumeFromDependencyProjectTestCaseId: login });
    const checkout = await testCase(shop, 'Checkout', { waitForDependenciesProjectTestCaseIds: [cart] });
    const adminCase = await testCase(admin, 'Admin');
    const loginPath = `/v1/test-cases/${login}`;
    const before = (await ctx.call('GET', loginPath)).body;

    const rejected: [Record<string, unknown>, number, RegExp][] = [
      // login → checkout → cart → login, through both kinds of dependency.
      [
        { waitForDependenciesProjectTestCaseIds: [checkout] },
        400,
        new RegExp(
          `^Dependency cycle: Login \\(${login}\\) → Checkout \\(${checkout}\\) → Cart \\(${cart}\\) → Login \\(${login}\\)`,
        ),
      ],
      [
        { resumeFromDependencyProjectTestCaseId: cart },
        400,
        new RegExp(`^Dependency cycle: Login \\(${login}\\) → Cart \\(${cart}\\) → Login`),
      ],
      [
        { resumeFromDependencyProjectTestCaseId: login },
        400,
        /^resumeFromDependencyProjectTestCaseId: a test case cannot depend on itself/,
      ],
      [
        { waitForDependenciesProjectTestCaseIds: [login.toUpperCase()] },
        400,
        /^waitForDependenciesProjectTestCaseIds: a test case cannot depend on itself/,
      ],
      [{ resumeFromDependencyProjectTestCaseId: adminCase }, 400, /belongs to another application/],
      [{ waitForDependenciesProjectTestCaseIds: [theirCase] }, 404, new RegExp(`^Test case not found: ${theirCase}$`)],
      [
        { resumeFromDependencyProjectTestCaseId: theirCase, name: 'Not applied' },
        404,
        new RegExp(`^Test case not found: ${theirCase}$`),
      ],
    ];
    for (const [body, status, message] of rejected) {
      const res = await ctx.call('PATCH', loginPath, { name: 'Not applied', ...body });
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.message).toMatch(message);
    }
    expect((await ctx.call('GET', loginPath)).body).toEqual(before);

    // Without a cycle the same kinds of change are accepted; only the fields named change.
    const cartPath = `/v1/test-cases/${cart}`;
    const rewired = await ctx.call('PATCH', cartPath, { waitForDependenciesProjectTestCaseIds: [adminCase] });
    expect(rewired.status).toBe(200);
    expect(rewired.body).toMatchObject({
      resumeFromDependencyProjectTestCaseId: login,
      waitForDependenciesProjectTestCaseIds: [adminCase],
    });
    const cleared = await ctx.call('PATCH', cartPath, { resumeFromDependencyProjectTestCaseId: null });
    expect(cleared.body).toMatchObject({
      resumeFromDependencyProjectTestCaseId: null,
      waitForDependenciesProjectTestCaseIds: [adminCase],
    });
    // Cart no longer depends on Login, so Login may now wait for Checkout (→ Cart → Admin).
    const waits = await ctx.call('PATCH', loginPath, { waitForDependenciesProjectTestCaseIds: [checkout] });
    expect(waits.status).toBe(200);
    expect(waits.body.waitForDependenciesProjectTestCaseIds).toEqual([checkout]);
    const emptied = await ctx.call('PATCH', loginPath, { waitForDependenciesProjectTestCaseIds: [] });
    expect(emptied.body.waitForDependenciesProjectTestCaseIds).toEqual([]);
  });

  it('deletes a test case, refusing while others depend on it', async () => {
    const shop = await application('Deleted');
    const base = await testCase(shop, 'Base');
    const resumes = await testCase(shop, 'Resumes', { resumeFromDependencyProjectTestCaseId: base });
    const waits = await testCase(shop, 'Waits', { waitForDependenciesProjectTestCaseIds: [base] });
    const plan = (await ctx.call('POST', '/v1/test-plans', { name: 'With base', testCaseIds: [base] })).body;
    const before = await rowCount();

    const refused = await ctx.call('DELETE', `/v1/test-cases/${base}`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(
      `Test case Base (${base}) is a dependency of Resumes (${resumes}), Waits (${waits}); remove it from their dependencies first`,
    );
    expect(await rowCount()).toBe(before);

    await ctx.call('PATCH', `/v1/test-cases/${resumes}`, { resumeFromDependencyProjectTestCaseId: null });
    await ctx.call('PATCH', `/v1/test-cases/${waits}`, { waitForDependenciesProjectTestCaseIds: [] });
    const deleted = await ctx.call('DELETE', `/v1/test-cases/${base.toUpperCase()}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ deleted: true });
    expect((await ctx.call('GET', `/v1/test-cases/${base}`)).status).toBe(404);
    expect((await ctx.call('DELETE', `/v1/test-cases/${base}`)).status).toBe(404);
    expect((await ctx.call('GET', `/v1/test-plans/${plan.shortId}`)).body.testCases).toEqual([]);

    // Its burn-in is left alone: it will find the row gone.
    const client = await ctx.deps.temporal.get();
    expect((await client.workflow.getHandle(`burn-in:${base}`).describe()).status.name).toBe('RUNNING');
  });

  it("hides another project's test cases on every route", async () => {
    const theirs = await testCase(
      await application('Hidden', ctx.other.token),
      'Hidden case',
      { labels: ['hidden'] },
      ctx.other.token,
    );
    await markGenerated(theirs);
    const still = await expectHiddenFromCaller(ctx, {
      path: '/v1/test-cases',
      shortId: theirs,
      message: 'Test case not found',
      patches: [{ name: 'Mine now' }, { isEnabled: true }],
    });
    const listed = await ctx.call('GET', '/v1/test-cases?limit=200');
    expect(listed.body.testCases.map((t: { id: string }) => t.id)).not.toContain(theirs);
    expect((await ctx.call('GET', '/v1/test-cases?labels=hidden')).body).toMatchObject({ testCases: [], total: 0 });
    expect(still).toMatchObject({
      name: 'Hidden case',
      isEnabled: false,
    });
  });
});
