import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FixtureApps } from '../support/fixture-apps.js';
import { useModelStack } from '../support/model-stack.js';
import { freePort, waitFor } from '../support/net.js';
import { addApplication } from '../support/applications.js';
import { insertRecordedTestCase, todoSteps } from '../support/recorded.js';
import type { ChatRequest, ScriptedLlm } from '../support/scripted-llm.js';
import type { Stack } from '../support/worker-context.js';

/** The text of the last tool result the model was given. */
const lastToolResult = (req: ChatRequest) => {
  const tool = [...req.messages].reverse().find((m) => m.role === 'tool');
  return typeof tool?.content === 'string' ? tool.content : '';
};

describe('MCP server at POST /v1/mcp', () => {
  let stack: Stack;
  let fixtures: FixtureApps;
  let llm: ScriptedLlm;
  let server: Server;
  let url: string;
  let client: Client;
  let planShortId: string;
  let appShortId: string;
  let testCaseId: string;

  const connect = async (token: string) => {
    const c = new Client({ name: 'proctor-test', version: '1.0.0' });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/v1/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return c;
  };

  const rig = useModelStack();
  beforeAll(async () => {
    ({ fixture: fixtures, llm, stack } = rig);
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    server = await new Promise<Server>((resolve) => {
      const s = serve({ fetch: stack.app.fetch, port, hostname: '127.0.0.1' }, () => resolve(s as Server));
    });
    const app = await addApplication(stack, 'Todo', { name: 'Local', url: `${fixtures.url}/todo/` });
    appShortId = app.shortId;
    testCaseId = await insertRecordedTestCase(stack.db, {
      projectId: stack.tenant.projectId,
      applicationId: app.id,
      name: 'add milk',
      steps: todoSteps('milk'),
    });
    planShortId = (await stack.call('POST', '/v1/test-plans', { name: 'Smoke', testCaseIds: [testCaseId] })).body
      .shortId;
    client = await connect(stack.tenant.token);
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
  });

  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const res = (await client.callTool({ name, arguments: args })) as {
      isError?: boolean;
      content: { type: string; text: string }[];
      structuredContent?: any;
    };
    return res;
  };

  /** get_run through the tools until the run has ended. */
  /** POSTs this text to the MCP endpoint as a plain JSON client of the tenant. */
  const postJson = (body: string) =>
    fetch(`${url}/v1/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        authorization: `Bearer ${stack.tenant.token}`,
      },
      body,
    });

  const endedRun = async (runShortId: string) => {
    let run: any;
    await waitFor(
      async () => {
        run = (await call('get_run', { shortId: runShortId, testCases: 'all' })).structuredContent;
        return ['COMPLETED', 'ERROR', 'CANCELLED'].includes(run.status);
      },
      90_000,
      `run ${runShortId}`,
    );
    return run;
  };

  it('lists its tools with the REST routes’ input schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'chat',
      'create_test_case',
      'discovery_map',
      'get_change_review',
      'get_chat',
      'get_run',
      'get_test_case',
      'list_applications',
      'list_runs',
      'list_test_cases',
      'list_test_plans',
      'rerun_run',
      'run_test_cases',
      'run_test_plan',
      'start_change_review',
      'start_discovery',
      'uncovered',
    ]);
    const schema = (name: string) => tools.find((t) => t.name === name)!.inputSchema;
    expect(schema('create_test_case').required).toEqual(expect.arrayContaining(['name', 'goal', 'applicationShortId']));
    expect(Object.keys(schema('run_test_plan').properties ?? {})).toEqual(
      expect.arrayContaining(['testPlanShortId', 'applications']),
    );
    expect(schema('run_test_cases').required).toEqual(['testCaseIds']);
    expect(Object.keys(schema('run_test_cases').properties ?? {})).toEqual(
      expect.arrayContaining(['applications', 'branch', 'commitHash']),
    );
    expect(schema('chat').required).toEqual(['message']);
    expect(Object.keys(schema('chat').properties ?? {})).toEqual(
      expect.arrayContaining(['applicationOverrides', 'chatConversationShortId', 'waitSeconds']),
    );
    expect(schema('start_change_review').required).toEqual(expect.arrayContaining(['mode', 'applicationOverrides']));
    expect(Object.keys(schema('start_change_review').properties ?? {})).toEqual(
      expect.arrayContaining(['prUrl', 'vcsProviderId', 'changes', 'context']),
    );
  });

  it('runs a plan through the tools and reads its result', async () => {
    const apps = await call('list_applications');
    expect(apps.structuredContent.applications.map((a: any) => a.shortId)).toEqual([appShortId]);
    const tests = await call('list_test_cases', { applicationShortId: appShortId });
    expect(tests.structuredContent.testCases.map((t: any) => t.name)).toEqual(['add milk']);

    // A tool of the chat's registry, served as it is: the same text the assistant reads.
    const plans = await call('list_test_plans');
    expect(plans).toMatchObject({
      content: [
        {
          type: 'text',
          text: expect.stringMatching(
            new RegExp(`^- Smoke \\(${planShortId}\\)( \\[default\\])?: 1 test case\\(s\\)$`),
          ),
        },
      ],
    });
    expect(plans.isError).toBeFalsy();

    const started = await call('run_test_plan', { testPlanShortId: planShortId });
    expect(started.isError).toBeFalsy();
    const runShortId = started.structuredContent.run.shortId;
    const run = await endedRun(runShortId);
    expect(run).toMatchObject({ status: 'COMPLETED', result: 'PASSED' });
    expect(run.runTestCases[0]).toMatchObject({ name: 'add milk', result: 'PASSED' });
    expect(fixtures.requests().some((r) => r.startsWith('GET /todo/'))).toBe(true);

    // A registry tool served as it is, with the model's input: the run just ended leads the list.
    const runs = await call('list_runs', { testPlanShortId: planShortId, limit: 1 });
    expect(runs.content[0]!.text).toMatch(
      new RegExp(`^1 run\\(s\\):\\n- ${runShortId}: COMPLETED PASSED, 1 test\\(s\\), plan Smoke, `),
    );
    expect((await call('list_runs', { status: 'SOMETIMES' })).isError).toBe(true);

    const rerun = await call('rerun_run', { shortId: runShortId });
    expect(rerun.structuredContent).toMatchObject({ success: true, run: { testCount: 1 } });
    // The same refusal as the REST route's: the rerun body's own schema applies.
    const both = await call('rerun_run', { shortId: runShortId, failedOnly: true, projectTestCaseIds: [testCaseId] });
    expect(both).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/failedOnly and projectTestCaseIds cannot be combined/) }],
    });
  }, 120_000);

  it('starts a discovery, reads its map and what no enabled test covers, with the counts of the REST map', async () => {
    // Nothing to answer from before a discovery has completed: the tool says what to do.
    const early = await call('uncovered', { applicationShortId: appShortId });
    expect(early.isError).toBe(true);
    expect(early.content[0]!.text).toMatch(/has no completed discovery yet: start one with start_discovery/);

    const started = await call('start_discovery', { applicationShortId: appShortId, budget: { pages: 5, minutes: 3 } });
    expect(started.isError).toBeFalsy();
    const shortId = /^Discovery (disc_\w+) started on /.exec(started.content[0]!.text)?.[1] ?? '';
    expect(shortId).not.toBe('');
    let mapText = '';
    await waitFor(
      async () => {
        mapText = (await call('discovery_map', { discoveryShortId: shortId })).content[0]!.text;
        return /: (COMPLETED|FAILED|CANCELLED)/.test(mapText);
      },
      90_000,
      `discovery ${shortId}`,
    );
    const rest = (await stack.call('GET', `/v1/discoveries/${shortId}/pages`)).body;
    const forms = rest.patterns.reduce((n: number, p: any) => n + p.forms.length, 0);
    expect(mapText).toContain(`Discovery ${shortId} of ${appShortId} on ${fixtures.url}/todo/: COMPLETED`);
    expect(mapText).toContain(`${rest.patterns.length} page pattern(s), ${forms} form(s)`);
    for (const p of rest.patterns) expect(mapText).toContain(`- ${p.pattern}`);
    // The application's latest completed discovery is this one.
    expect((await call('discovery_map', { applicationShortId: appShortId })).content[0]!.text).toBe(mapText);

    const uncovered = (await call('uncovered', { applicationShortId: appShortId })).content[0]!.text;
    expect(uncovered).toMatch(
      new RegExp(
        `^From discovery ${shortId} \\(finished [^)]+\\): \\d+ of ${rest.patterns.length} page pattern\\(s\\) and \\d+ of ${forms} form\\(s\\) are covered by no enabled test\\.`,
      ),
    );
    expect((await call('discovery_map', {})).isError).toBe(true);
  }, 150_000);

  it('runs given test cases through the tools, on an environment named in the call', async () => {
    const shown = await call('get_test_case', { testCaseId });
    expect(shown.structuredContent).toMatchObject({ id: testCaseId, name: 'add milk', healProposals: [] });
    const before = fixtures.requests().length;
    const started = await call('run_test_cases', {
      testCaseIds: [testCaseId],
      applications: [{ applicationShortId: appShortId, environment: { url: `${fixtures.url}/todo/?from=mcp` } }],
      branch: 'feature/milk',
    });
    expect(started.isError).toBeFalsy();
    expect(started.structuredContent).toMatchObject({
      success: true,
      run: { testCount: 1, url: expect.stringMatching(/\/runs\/run_/) },
    });
    const runShortId = started.structuredContent.run.shortId;
    const run = await endedRun(runShortId);
    expect(run).toMatchObject({ status: 'COMPLETED', result: 'PASSED', testPlan: null });
    expect(run.runTestCases).toMatchObject([
      { name: 'add milk', result: 'PASSED', environmentUrl: `${fixtures.url}/todo/?from=mcp` },
    ]);
    expect(
      fixtures
        .requests()
        .slice(before)
        .some((r) => r.startsWith('GET /todo/?from=mcp')),
    ).toBe(true);
    const row = await stack.db
      .selectFrom('runs')
      .select(['branch', 'test_plan_id'])
      .where('short_id', '=', runShortId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ branch: 'feature/milk', test_plan_id: null });

    const unknown = await call('run_test_cases', { testCaseIds: ['3f2b8c1e-7d4a-4b6f-9a2e-1c5d8e9f0a7b'] });
    expect(unknown).toMatchObject({
      isError: true,
      content: [{ text: 'Test case not found: 3f2b8c1e-7d4a-4b6f-9a2e-1c5d8e9f0a7b' }],
    });
  }, 120_000);

  it('chats: sends a message and waits for the reply, which may use the assistant’s tools; a follow-up continues the conversation', async () => {
    llm.enqueue({ toolCalls: [{ name: 'list_applications', arguments: {} }] }, (req) => ({
      content: `You have: ${lastToolResult(req)}`,
    }));
    const first = await call('chat', { message: 'Which applications do I have?' });
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent).toMatchObject({
      chatConversationShortId: expect.stringMatching(/^chat[-_]/),
      url: expect.stringMatching(/^https:\/\/app\.proctor\.test\//),
      finished: true,
      reply: { status: 'COMPLETED', isStreaming: false, text: expect.stringContaining(`Todo (${appShortId}, web)`) },
    });
    const chatShortId = first.structuredContent.chatConversationShortId;

    llm.enqueue({ content: 'Still just the one.' });
    const second = await call('chat', { message: 'And now?', chatConversationShortId: chatShortId });
    expect(second.structuredContent).toMatchObject({
      chatConversationShortId: chatShortId,
      finished: true,
      reply: { status: 'COMPLETED', text: 'Still just the one.' },
    });
    // The model saw the whole conversation, as a REST follow-up would.
    const prompt = llm.requests
      .at(-1)!
      .messages.map((m) => (typeof m.content === 'string' ? m.content : ''))
      .join('\n');
    expect(prompt).toContain('Which applications do I have?');
    expect(prompt).toContain('And now?');
    const conversation = (await stack.call('GET', `/v1/chat/${chatShortId}`)).body;
    expect(conversation.messages.map((m: any) => [m.role, m.status])).toEqual([
      ['assistant', 'COMPLETED'],
      ['user', 'COMPLETED'],
      ['assistant', 'COMPLETED'],
      ['user', 'COMPLETED'],
    ]);
  }, 60_000);

  it('chat waits a bounded time: an unfinished reply comes back as it stands, and get_chat reads the rest', async () => {
    const reply = Array.from({ length: 40 }, (_, i) => `word${i + 1}`).join(' ');
    llm.enqueue({ content: reply, fragmentDelayMs: 100 });
    const startedAt = Date.now();
    const sent = await call('chat', { message: 'Say a lot', waitSeconds: 1 });
    expect(Date.now() - startedAt).toBeLessThan(3_000);
    expect(sent.structuredContent).toMatchObject({
      finished: false,
      reply: { status: expect.stringMatching(/^(INITIATED|PARTIAL)$/) },
    });
    expect(reply.startsWith(sent.structuredContent.reply.text)).toBe(true);
    const chatShortId = sent.structuredContent.chatConversationShortId;
    let latest: any;
    await waitFor(
      async () => {
        const got = await call('get_chat', { chatConversationShortId: chatShortId, limit: 1 });
        expect(got.isError, got.content[0]?.text).toBeFalsy();
        latest = got.structuredContent;
        return latest.messages[0].status === 'COMPLETED';
      },
      30_000,
      'the reply to end',
    );
    expect(latest.messages).toEqual([expect.objectContaining({ role: 'assistant', text: reply, isStreaming: false })]);

    const missing = await call('chat', { message: 'Hello?', chatConversationShortId: 'chat_doesnotexist' });
    expect(missing).toMatchObject({ isError: true, content: [{ text: 'Conversation not found' }] });
    const tooLong = await call('chat', { message: 'Hello?', waitSeconds: 600 });
    expect(tooLong.isError).toBe(true);
  }, 60_000);

  it('starts a change review and reads its verdict: a docs-only diff runs nothing and says so', async () => {
    const diff = [
      'diff --git a/README.md b/README.md',
      '--- a/README.md',
      '+++ b/README.md',
      '@@ -1 +1 @@',
      '-Run npm start.',
      '+Run npm run dev.',
      '',
    ].join('\n');
    const applicationOverrides = [{ applicationShortId: appShortId, environment: { url: `${fixtures.url}/todo/` } }];
    const runsBefore = (await stack.db.selectFrom('runs').select('id').execute()).length;
    const started = await call('start_change_review', {
      mode: 'rawChanges',
      changes: { changeDescription: 'Reword the README', diff },
      applicationOverrides,
      branch: 'docs/readme',
    });
    expect(started.isError, started.content[0]?.text).toBeFalsy();
    const chatConversationShortId = started.structuredContent.shortId;
    expect(chatConversationShortId).toMatch(/^chat[-_]/);
    let review: any;
    await waitFor(
      async () => {
        review = (await call('get_change_review', { chatConversationShortId })).structuredContent;
        return ['COMPLETED', 'FAILED', 'CANCELLED'].includes(review.state);
      },
      60_000,
      'the review to end',
    );
    expect(review).toMatchObject({
      state: 'COMPLETED',
      verdict: 'Comment',
      mode: 'rawChanges',
      tests: [],
      runShortId: null,
      metadata: { branch: 'docs/readme' },
    });
    expect(review.summary).toMatch(/only touches documentation/);
    expect((await stack.db.selectFrom('runs').select('id').execute()).length).toBe(runsBefore);

    // The route's own rules: a pull-request review needs its address.
    const missing = await call('start_change_review', { mode: 'pr', vcsProviderId: 'github', applicationOverrides });
    expect(missing).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/prUrl/) }] });
  }, 90_000);

  it('answers a bad call as a tool error, changing nothing', async () => {
    const before = (await stack.db.selectFrom('runs').select('id').execute()).length;
    const missing = await call('run_test_plan', { testPlanShortId: 'pln_doesnotexist' });
    expect(missing.isError).toBe(true);
    expect(missing.content[0]!.text).toBe('Test plan not found');
    const invalid = await call('get_run', { shortId: 'not-a-run' });
    expect(invalid.isError).toBe(true);
    expect((await stack.db.selectFrom('runs').select('id').execute()).length).toBe(before);
  });

  it('takes the same Bearer token as the REST API and refuses GET', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    expect((await fetch(`${url}/v1/mcp`, { method: 'POST', headers, body })).status).toBe(401);
    expect(
      (
        await fetch(`${url}/v1/mcp`, {
          method: 'POST',
          headers: { ...headers, authorization: 'Bearer prt_wrong' },
          body,
        })
      ).status,
    ).toBe(401);
    await expect(connect('prt_wrong')).rejects.toThrow();
    const get = await fetch(`${url}/v1/mcp`, { headers: { authorization: `Bearer ${stack.tenant.token}` } });
    expect(get.status).toBe(405);
  });

  it('answers a plain JSON client in JSON, and refuses what is not a JSON-RPC request with a message', async () => {
    const post = (body: unknown) => postJson(JSON.stringify(body));
    const listed = await post({ jsonrpc: '2.0', id: 7, method: 'tools/list' });
    expect(listed.status).toBe(200);
    expect(await listed.json()).toMatchObject({
      jsonrpc: '2.0',
      id: 7,
      result: { tools: expect.arrayContaining([expect.objectContaining({ name: 'get_run' })]) },
    });
    const notRpc = await post({ jsonrpc: '2.0', id: 8 });
    expect(notRpc.status).toBe(400);
    expect(await notRpc.json()).toEqual({ message: expect.stringMatching(/method/) });
  });

  it('takes a body as large as a raw diff for start_change_review (PROCTOR_MAX_DIFF_BYTES), not only 1 MiB', async () => {
    const MiB = 1024 * 1024;
    // JSON may end in whitespace: the size alone is what is checked here, without starting a review.
    const post = (padding: number) =>
      postJson(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }) + ' '.repeat(padding));
    const large = await post(3 * MiB);
    expect(large.status).toBe(200);
    expect(await large.json()).toMatchObject({
      id: 9,
      result: { tools: expect.arrayContaining([expect.objectContaining({ name: 'start_change_review' })]) },
    });
    const tooLarge = await post(17 * MiB);
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toEqual({
      message: `Request body exceeds the ${16 * MiB} byte limit (PROCTOR_MAX_DIFF_BYTES)`,
    });
  });
});
