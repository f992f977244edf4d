import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createApiContext,
  databaseKinds,
  startedWorkflowIds,
  terminateRunningWorkflows,
  type ApiContext,
} from '../support/app-context.js';
import { countRows } from '../support/row-counts.js';
import { applicationIdOf, insertRecordedTestCase, loginSteps } from '../support/recorded.js';
import { budgetLimits } from '../../src/domain/discovery-run.js';
import { defaultDiscoveryBudget } from '../../src/domain/discovery.js';

// Asking for a discovery: every bad field is refused with a 4xx {message} and changes nothing (no row, no
// workflow); a good request is 202 with the discovery QUEUED and its workflow started under `discovery:<shortId>`.
// The reads (one, the list, the map, the diff) and cancel answer as a client expects. No worker runs here: the
// discovery itself is test/e2e/discovery.test.ts.

interface Case {
  name: string;
  /** The path's application (default: the shop). */
  app?: () => string;
  body: () => Record<string, unknown>;
  status: number;
  message: RegExp;
}

describe.each(databaseKinds)('discoveries API (%s)', (kind) => {
  let api: ApiContext;
  let shop: string;
  let shopEnv: string;
  let blog: string;
  let blogEnv: string;
  let bare: string;
  let android: string;
  let loginTest: string;
  let blogTest: string;
  let unrecordedTest: string;

  beforeAll(async () => {
    api = await createApiContext(kind);
    const app = async (name: string, appKind = 'web') =>
      (await api.call('POST', '/v1/applications', { name, kind: appKind })).body.shortId as string;
    const env = async (appShortId: string, url: string) =>
      (await api.call('POST', `/v1/applications/${appShortId}/environments`, { name: 'Staging', url })).body
        .shortId as string;
    shop = await app('Shop');
    shopEnv = await env(shop, 'http://127.0.0.1:9/shop');
    blog = await app('Blog');
    blogEnv = await env(blog, 'http://127.0.0.1:9/blog');
    bare = await app('No environment');
    android = await app('Shop Android', 'android');
    const recorded = async (appShortId: string, name: string) =>
      insertRecordedTestCase(api.db, {
        projectId: api.tenant.projectId,
        applicationId: await applicationIdOf(api.db, appShortId),
        name,
        steps: loginSteps,
      });
    loginTest = await recorded(shop, 'Login');
    blogTest = await recorded(blog, 'Blog login');
    unrecordedTest = await recorded(shop, 'Not burned in');
    await api.db
      .updateTable('test_cases')
      .set({ generation_status: 'GENERATING', steps: null })
      .where('id', '=', unrecordedTest)
      .execute();
  }, 60_000);
  afterAll(async () => api?.close());

  const discoveries = () => countRows(api.db, 'discoveries');
  const startedWorkflows = () => startedWorkflowIds(api);

  const budgetCases = (['pages', 'actions', 'minutes'] as const).flatMap((field): Case[] =>
    [0, -1, 1.5, budgetLimits[field] + 1, '10', null].map((value) => ({
      name: `budget.${field} = ${JSON.stringify(value)}`,
      body: () => ({ budget: { [field]: value } }),
      status: 400,
      message: new RegExp(`^budget\\.${field}: `),
    })),
  );

  const cases: Case[] = [
    {
      name: 'an application of another project',
      app: () => 'app_doesnotexist',
      body: () => ({}),
      status: 404,
      message: /Application/,
    },
    {
      name: 'a malformed application id',
      app: () => 'nope',
      body: () => ({}),
      status: 400,
      message: /applicationShortId/,
    },
    {
      name: 'a mobile application',
      app: () => android,
      body: () => ({}),
      status: 400,
      message: /^application Shop Android is an android application: discovery explores web applications$/,
    },
    {
      name: 'an application with no environment',
      app: () => bare,
      body: () => ({}),
      status: 400,
      message: /^environmentShortId: application No environment has no environment: create one/,
    },
    {
      name: 'a malformed environment id',
      body: () => ({ environmentShortId: 'staging' }),
      status: 400,
      message: /^environmentShortId: /,
    },
    {
      name: "another application's environment",
      body: () => ({ environmentShortId: blogEnv }),
      status: 404,
      message: /^Environment env.* of application app.* not found/,
    },
    ...budgetCases,
    { name: 'a budget that is not an object', body: () => ({ budget: 5 }), status: 400, message: /^budget: / },
    {
      name: 'an intent of 501 characters',
      body: () => ({ intent: 'x'.repeat(501) }),
      status: 400,
      message: /^intent: .*500/,
    },
    { name: 'an intent that is not text', body: () => ({ intent: 42 }), status: 400, message: /^intent: / },
    {
      name: 'a resume-from id that is not a UUID',
      body: () => ({ resumeFromTestCaseId: 'login' }),
      status: 400,
      message: /^resumeFromTestCaseId: /,
    },
    {
      name: 'a resume-from test case that does not exist',
      body: () => ({ resumeFromTestCaseId: '3f2b8c1e-7d4a-4b6f-9a2e-1c5d8e9f0a7b' }),
      status: 404,
      message: /^Test case 3f2b8c1e-7d4a-4b6f-9a2e-1c5d8e9f0a7b not found/,
    },
    {
      name: "another application's test case",
      body: () => ({ resumeFromTestCaseId: blogTest }),
      status: 400,
      message: /^resumeFromTestCaseId: "Blog login" belongs to another application/,
    },
    {
      name: 'a test case not burned in',
      body: () => ({ resumeFromTestCaseId: unrecordedTest }),
      status: 400,
      message: /^resumeFromTestCaseId: "Not burned in" has no recorded steps/,
    },
  ];

  it.each(cases)('refuses $name, storing and starting nothing', async (c) => {
    const before = await discoveries();
    const res = await api.call('POST', `/v1/applications/${c.app?.() ?? shop}/discoveries`, c.body());
    expect(res.status, JSON.stringify(res.body)).toBe(c.status);
    expect(res.body.message).toMatch(c.message);
    expect(await discoveries()).toBe(before);
  });

  it('accepts a good request: 202, QUEUED, its workflow started; read, listed, mapped, diffed and cancelled', async () => {
    expect(await startedWorkflows()).toEqual([]); // the refusals above started nothing
    const asked = await api.call('POST', `/v1/applications/${shop}/discoveries`, {
      budget: { pages: 20 },
      intent: '  the checkout  ',
      resumeFromTestCaseId: loginTest.toUpperCase(),
    });
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    expect(asked.body).toMatchObject({
      applicationShortId: shop,
      environmentShortId: shopEnv,
      startUrl: 'http://127.0.0.1:9/shop',
      status: 'QUEUED',
      budget: { ...defaultDiscoveryBudget, pages: 20 },
      intent: 'the checkout',
      resumeFromTestCaseId: loginTest,
      pages: 0,
      actions: 0,
      stopReason: null,
    });
    const id = asked.body.shortId as string;
    expect(id).toMatch(/^disc_/);
    // Temporal's visibility lists a started workflow a moment later (its own queue), longer on a loaded machine.
    await expect.poll(startedWorkflows, { timeout: 15_000 }).toEqual([`discovery:${id}`]);

    expect((await api.call('GET', `/v1/discoveries/${id}`)).body).toEqual(asked.body);
    const other = await api.call('POST', `/v1/applications/${blog}/discoveries`, {});
    expect(other.status).toBe(202);
    expect((await api.call('GET', `/v1/applications/${shop}/discoveries`)).body).toEqual({ discoveries: [asked.body] });
    expect((await api.call('GET', `/v1/discoveries/${id}/pages`)).body).toEqual({
      discovery: asked.body,
      patterns: [],
      links: [],
    });
    const again = await api.call('POST', `/v1/applications/${shop}/discoveries`, {});
    const diff = await api.call('GET', `/v1/discoveries/${again.body.shortId}/diff?against=${id}`);
    expect(diff.status).toBe(200);
    expect(diff.body).toMatchObject({ from: id, to: again.body.shortId, patterns: { added: [], removed: [] } });
    const across = await api.call('GET', `/v1/discoveries/${id}/diff?against=${other.body.shortId}`);
    expect(across.status).toBe(400);
    expect(across.body.message).toMatch(/^against: discovery disc_.* explored another application/);
    expect((await api.call('GET', `/v1/discoveries/${id}/diff`)).status).toBe(400);

    // Another project sees none of it.
    expect((await api.call('GET', `/v1/discoveries/${id}`, undefined, api.other.token)).status).toBe(404);
    expect((await api.call('POST', `/v1/discoveries/${id}/cancel`, undefined, api.other.token)).status).toBe(404);

    // Cancelled: its workflow is asked to stop (no worker here to end it, so the row stays as it is).
    const cancelled = await api.call('POST', `/v1/discoveries/${id}/cancel`);
    expect(cancelled.status).toBe(202);
    const client = await api.deps.temporal.get();
    const history = await client.workflow.getHandle(`discovery:${id}`).fetchHistory();
    expect(history.events?.some((e) => e.workflowExecutionCancelRequestedEventAttributes)).toBe(true);
    // An ended discovery cannot be cancelled.
    await api.db.updateTable('discoveries').set({ status: 'COMPLETED' }).where('short_id', '=', id).execute();
    const ended = await api.call('POST', `/v1/discoveries/${id}/cancel`);
    expect(ended.status).toBe(409);
    expect(ended.body.message).toBe(`discovery ${id} has ended (COMPLETED): there is nothing to cancel`);
    await terminateRunningWorkflows(api);
  });
});
