import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';
import { freePort, waitFor } from '../support/net.js';
import { insertRecordedTestCase, todoSteps } from '../support/recorded.js';
import { startStack, type Stack } from '../support/worker-context.js';

describe('MCP server at POST /v1/mcp', () => {
  let stack: Stack;
  let fixtures: FixtureApps;
  let server: Server;
  let url: string;
  let client: Client;
  let planShortId: string;
  let appShortId: string;

  const connect = async (token: string) => {
    const c = new Client({ name: 'proctor-test', version: '1.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${url}/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    return c;
  };

  beforeAll(async () => {
    [stack, fixtures] = await Promise.all([startStack(), startFixtureApps()]);
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    server = await new Promise<Server>((resolve) => {
      const s = serve({ fetch: stack.app.fetch, port, hostname: '127.0.0.1' }, () => resolve(s as Server));
    });
    appShortId = (await stack.call('POST', '/v1/applications', { name: 'Todo' })).body.shortId;
    await stack.call('POST', `/v1/applications/${appShortId}/environments`, { name: 'Local', url: `${fixtures.url}/todo/` });
    const appId = (await stack.db.selectFrom('applications').select('id').where('short_id', '=', appShortId).executeTakeFirstOrThrow()).id;
    const testCaseId = await insertRecordedTestCase(stack.db, { projectId: stack.tenant.projectId, applicationId: appId, name: 'add milk', steps: todoSteps('milk') });
    planShortId = (await stack.call('POST', '/v1/test-plans', { name: 'Smoke', testCaseIds: [testCaseId] })).body.shortId;
    client = await connect(stack.tenant.token);
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    await stack?.close();
    await fixtures?.stop();
  });

  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const res = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: any };
    return res;
  };

  it('lists its tools with the REST routes’ input schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['create_test_case', 'get_run', 'get_test_case', 'list_applications', 'list_test_cases', 'rerun_run', 'run_test_plan']);
    const createTool = tools.find((t) => t.name === 'create_test_case')!;
    expect(createTool.inputSchema.required).toEqual(expect.arrayContaining(['name', 'goal', 'applicationShortId']));
    const runTool = tools.find((t) => t.name === 'run_test_plan')!;
    expect(Object.keys(runTool.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['testPlanShortId', 'applications']));
  });

  it('runs a plan through the tools and reads its result', async () => {
    const apps = await call('list_applications');
    expect(apps.structuredContent.applications.map((a: any) => a.shortId)).toEqual([appShortId]);
    const tests = await call('list_test_cases', { applicationShortId: appShortId });
    expect(tests.structuredContent.testCases.map((t: any) => t.name)).toEqual(['add milk']);

    const started = await call('run_test_plan', { testPlanShortId: planShortId });
    expect(started.isError).toBeFalsy();
    const runShortId = started.structuredContent.run.shortId;
    let run: any;
    await waitFor(async () => {
      run = (await call('get_run', { shortId: runShortId, testCases: 'all' })).structuredContent;
      return ['COMPLETED', 'ERROR', 'CANCELLED'].includes(run.status);
    }, 90_000, `run ${runShortId}`);
    expect(run).toMatchObject({ status: 'COMPLETED', result: 'PASSED' });
    expect(run.runTestCases[0]).toMatchObject({ name: 'add milk', result: 'PASSED' });
    expect(fixtures.requests().some((r) => r.startsWith('GET /todo/'))).toBe(true);

    const rerun = await call('rerun_run', { shortId: runShortId });
    expect(rerun.structuredContent).toMatchObject({ success: true, run: { testCount: 1 } });
  }, 120_000);

  it('answers a bad call as a tool error, changing nothing', async () => {
    const before = (await stack.db.selectFrom('runs').select('id').execute()).length;
    const missing = await call('run_test_plan', { testPlanShortId: 'pln_doesnotexist' });
    expect(missing.isError).toBe(true);
    expect(missing.content[0]!.text).toMatch(/HTTP 404.*Test plan not found/s);
    const invalid = await call('get_run', { shortId: 'not-a-run' });
    expect(invalid.isError).toBe(true);
    expect((await stack.db.selectFrom('runs').select('id').execute()).length).toBe(before);
  });

  it('takes the same Bearer token as the REST API and refuses GET', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    expect((await fetch(`${url}/v1/mcp`, { method: 'POST', headers, body })).status).toBe(401);
    expect((await fetch(`${url}/v1/mcp`, { method: 'POST', headers: { ...headers, authorization: 'Bearer prt_wrong' }, body })).status).toBe(401);
    await expect(connect('prt_wrong')).rejects.toThrow();
    const get = await fetch(`${url}/v1/mcp`, { headers: { authorization: `Bearer ${stack.tenant.token}` } });
    expect(get.status).toBe(405);
  });

  it('answers a plain JSON client in JSON, and refuses what is not a JSON-RPC request with a message', async () => {
    const post = (body: unknown) =>
      fetch(`${url}/v1/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${stack.tenant.token}` },
        body: JSON.stringify(body),
      });
    const listed = await post({ jsonrpc: '2.0', id: 7, method: 'tools/list' });
    expect(listed.status).toBe(200);
    expect(await listed.json()).toMatchObject({ jsonrpc: '2.0', id: 7, result: { tools: expect.arrayContaining([expect.objectContaining({ name: 'get_run' })]) } });
    const notRpc = await post({ jsonrpc: '2.0', id: 8 });
    expect(notRpc.status).toBe(400);
    expect(await notRpc.json()).toEqual({ message: expect.stringMatching(/method/) });
  });
});
