import { sql } from 'kysely';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiContext, terminateRunningWorkflows, type ApiContext } from '../support/app-context.js';
import { toolArguments, type JsonSchema } from '../support/json-schema-arbitrary.js';
import { insertRecordedTestCase, todoSteps, applicationIdOf } from '../support/recorded.js';

// Issue 23: POST /v1/mcp fuzzed with fixed seeds, through the real app on Postgres and the test Temporal server (no
// worker: a run or chat that is accepted just waits). Malformed JSON-RPC, batches, unknown methods, oversized and
// deep input, and for every tool in tools/list arguments generated from its input JSON Schema (real ids mixed in,
// properties swapped for random JSON, random objects). Never a 5xx (nor a 500 hidden in a tool result or a JSON-RPC
// internal error), and a refused call changes no row in any table.

const seed = 2323;

interface Answer {
  status: number;
  text: string;
  json?: any;
}

/** What a server fault looks like on each of the three levels an MCP answer has. */
function serverFault(a: Answer): string | undefined {
  if (a.status >= 500) return `HTTP ${a.status}: ${a.text.slice(0, 300)}`;
  if (a.json?.error?.code === -32603) return `JSON-RPC internal error: ${a.json.error.message}`;
  const texts: string[] = (a.json?.result?.content ?? []).map((c: { text?: string }) => c.text ?? '');
  const hidden = texts.find((t) => /internal server error/i.test(t));
  return hidden ? `tool result: ${hidden}` : undefined;
}

const refused = (a: Answer) => a.status >= 400 || a.json?.error !== undefined || a.json?.result?.isError === true;

describe('fuzz: POST /v1/mcp', () => {
  let ctx: ApiContext;
  let tables: string[];
  let tools: Array<{ name: string; inputSchema: JsonSchema }>;
  const ids = { applicationShortId: '', environmentShortId: '', testCaseId: '', testPlanShortId: '' };
  const tally = new Map<string, { accepted: number; refused: number }>();

  const post = async (body: string, headers: Record<string, string> = {}): Promise<Answer> => {
    const res = await ctx.app.request('/v1/mcp', {
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.tenant.token}`, 'content-type': 'application/json', ...headers },
      body,
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, text, json };
  };
  /** Every table's row count, in one statement. */
  const rowCounts = async () => {
    const query = `select ${tables.map((t, i) => `(select count(*) from "${t}") as c${i}`).join(', ')}`;
    const row = (await sql.raw<Record<string, string>>(query).execute(ctx.db)).rows[0]!;
    return Object.fromEntries(tables.map((t, i) => [t, Number(row[`c${i}`])]));
  };
  /** Sends one body; fails on a server fault, and on a refusal that changed any row. */
  const probe = async (label: string, body: string, headers?: Record<string, string>): Promise<Answer> => {
    const before = await rowCounts();
    const answer = await post(body, headers);
    expect(serverFault(answer), `${label}: ${body.slice(0, 300)}`).toBeUndefined();
    if (refused(answer))
      expect(await rowCounts(), `${label} was refused but changed rows: ${body.slice(0, 300)}`).toEqual(before);
    const t = tally.get(label) ?? { accepted: 0, refused: 0 };
    t[refused(answer) ? 'refused' : 'accepted']++;
    tally.set(label, t);
    return answer;
  };

  beforeAll(async () => {
    ctx = await createApiContext('postgres');
    const names = await sql<{
      table_name: string;
    }>`select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' and table_name not like 'kysely_%'`.execute(
      ctx.db,
    );
    tables = names.rows.map((r) => r.table_name).sort();
    ids.applicationShortId = (await ctx.call('POST', '/v1/applications', { name: 'Todo' })).body.shortId;
    const env = await ctx.call('POST', `/v1/applications/${ids.applicationShortId}/environments`, {
      name: 'Local',
      url: 'http://127.0.0.1:9/todo/',
    });
    ids.environmentShortId = env.body.shortId;
    const appId = await applicationIdOf(ctx.db, ids.applicationShortId);
    ids.testCaseId = await insertRecordedTestCase(ctx.db, {
      projectId: ctx.tenant.projectId,
      applicationId: appId,
      name: 'add milk',
      steps: todoSteps('milk'),
    });
    ids.testPlanShortId = (
      await ctx.call('POST', '/v1/test-plans', { name: 'Smoke', testCaseIds: [ids.testCaseId] })
    ).body.shortId;
    const listed = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    tools = listed.json.result.tools;
    expect(tools.length).toBeGreaterThanOrEqual(13);
  });
  afterAll(async () => {
    // The accepted runs, burn-ins and chats wait for a worker that never comes: end them.
    await terminateRunningWorkflows(ctx);
    await ctx.close();
  });

  it('malformed JSON-RPC, batches, unknown methods, odd ids and headers: never a 5xx, and a refusal writes nothing', async () => {
    const methods = [
      'initialize',
      'tools/list',
      'tools/call',
      'ping',
      'notifications/initialized',
      'resources/list',
      'prompts/get',
      'completion/complete',
      'logging/setLevel',
      'sampling/createMessage',
    ];
    const id = fc.oneof(
      { weight: 6, arbitrary: fc.integer() },
      fc.string({ maxLength: 300 }),
      fc.constant(null),
      fc.double(),
      fc.constant(2 ** 60),
      fc.jsonValue({ maxDepth: 1 }),
    );
    const message = fc.record(
      {
        jsonrpc: fc.oneof({ weight: 4, arbitrary: fc.constant('2.0') }, fc.constantFrom('1.0', '2', 2, null)),
        method: fc.oneof(
          { weight: 6, arbitrary: fc.constantFrom(...methods) },
          fc.string({ maxLength: 30 }),
          fc.constant(''),
          fc.integer(),
        ),
        id,
        params: fc.oneof(
          {
            weight: 3,
            arbitrary: fc.dictionary(
              fc.constantFrom(
                'name',
                'arguments',
                'cursor',
                'protocolVersion',
                'capabilities',
                'clientInfo',
                '_meta',
                'x',
              ),
              fc.jsonValue({ maxDepth: 3 }),
            ),
          },
          fc.jsonValue({ maxDepth: 2 }),
        ),
      },
      { requiredKeys: ['jsonrpc', 'method'] },
    );
    // A response or an unknown member where a request belongs: rarer, so most messages get past the envelope.
    const extra = fc.oneof(
      { weight: 8, arbitrary: fc.constant({}) },
      fc.record({ result: fc.jsonValue({ maxDepth: 1 }) }),
    );
    // Half well-formed requests and notifications of the known methods, with random params: these reach the SDK.
    const wellFormed = fc
      .record(
        {
          jsonrpc: fc.constant('2.0'),
          method: fc.constantFrom(...methods),
          id: fc.integer({ min: 0, max: 1_000_000 }),
          params: fc.dictionary(
            fc.constantFrom('name', 'arguments', 'cursor', 'protocolVersion', 'capabilities', 'clientInfo', 'x'),
            fc.jsonValue({ maxDepth: 3 }),
            { maxKeys: 3 },
          ),
        },
        { requiredKeys: ['jsonrpc', 'method'] },
      )
      .map((m) => JSON.stringify(m));
    const body = fc.oneof(
      { weight: 9, arbitrary: wellFormed },
      { weight: 4, arbitrary: fc.tuple(message, extra).map(([m, x]) => JSON.stringify({ ...m, ...x })) },
      { weight: 2, arbitrary: fc.array(message, { maxLength: 5 }).map((b) => JSON.stringify(b)) },
      { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
      { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
      { weight: 1, arbitrary: message.map((m) => JSON.stringify(m).slice(0, -1)) },
    );
    const headers = fc.record(
      {
        'content-type': fc.constantFrom(
          'application/json',
          'application/json',
          'text/plain',
          'application/json; charset=latin1',
          '',
        ),
        accept: fc.constantFrom('application/json', 'text/event-stream', '*/*'),
        'mcp-session-id': fc.string({ maxLength: 40 }),
        'mcp-protocol-version': fc.constantFrom('2025-06-18', '2025-06-18', '1999-01-01', 'x'),
      },
      { requiredKeys: [] },
    );
    const someHeaders = fc.oneof({ weight: 2, arbitrary: fc.constant({}) }, headers);
    await fc.assert(
      fc.asyncProperty(body, someHeaders, async (b, h) => void (await probe('json-rpc', b, h))),
      { seed, numRuns: 300 },
    );

    // Unknown methods are a JSON-RPC error, not an HTTP one.
    const unknown = await probe('json-rpc', JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/destroy' }));
    expect(unknown.json).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32601 } });
    // Params a method's schema refuses are the client's mistake (-32602, naming the field), not an internal error.
    const badParams = await probe(
      'json-rpc',
      JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'list_runs', arguments: [1] } }),
    );
    expect(badParams.json).toEqual({
      jsonrpc: '2.0',
      id: 8,
      error: { code: -32602, message: expect.stringMatching(/^Invalid params: params\.arguments: /) },
    });
    const jsonRpc = tally.get('json-rpc')!;
    expect(jsonRpc.accepted, JSON.stringify(jsonRpc)).toBeGreaterThan(10);
  }, 60_000);

  it('oversized and deeply nested bodies are refused with a 4xx that says why', async () => {
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'create_test_case',
        arguments: { name: 'x', goal: 'y'.repeat(17 * 1024 * 1024), applicationShortId: ids.applicationShortId },
      },
    });
    const big = await probe('oversized', huge);
    expect(big.status).toBe(413);
    expect(big.json.message).toMatch(/exceeds the \d+ byte limit/);
    const deep = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_runs","arguments":{"status":${'['.repeat(10_000)}${']'.repeat(10_000)}}}}`;
    const nested = await probe('oversized', deep);
    expect(nested.status).toBe(400);
    expect(nested.json.message).toMatch(/nested deeper than/);
    // A long but allowed argument reaches the tool, which refuses it in the route's words.
    const long = await probe(
      'oversized',
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: {
          name: 'create_test_case',
          arguments: { name: 'n'.repeat(100_000), goal: 'g', applicationShortId: ids.applicationShortId },
        },
      }),
    );
    expect(long.status).toBe(200);
    expect(long.json.result?.isError ?? long.json.error !== undefined).toBe(true);
  }, 60_000);

  it('every tool in tools/list with arguments generated from its input schema: never a 5xx, a refusal writes nothing', async () => {
    const hints: Record<string, fc.Arbitrary<unknown>> = {
      applicationShortId: fc.constant(ids.applicationShortId),
      testPlanShortId: fc.constant(ids.testPlanShortId),
      testCaseId: fc.constant(ids.testCaseId),
      testCaseIds: fc.constant([ids.testCaseId]),
      projectTestCaseIds: fc.constant([ids.testCaseId]),
      shortId: fc.constant(ids.environmentShortId),
    };
    // An accepted chat waits for a reply no worker will write: keep the wait short (and sometimes out of range).
    const overrides = { waitSeconds: fc.constantFrom(0, 1, -1, 56, '1') };
    for (const tool of tools) {
      const args = toolArguments(tool.inputSchema, { hints, overrides: tool.name === 'chat' ? overrides : {} });
      let n = 0;
      await fc.assert(
        fc.asyncProperty(args, async (a) => {
          await probe(
            tool.name,
            JSON.stringify({
              jsonrpc: '2.0',
              id: ++n,
              method: 'tools/call',
              params: { name: tool.name, arguments: a },
            }),
          );
        }),
        { seed, numRuns: 30 },
      );
      const t = tally.get(tool.name)!;
      // Random input must be refused at times, or the generator never left the happy path.
      expect(t.refused, `${tool.name}: ${JSON.stringify(t)}`).toBeGreaterThan(0);
    }
    const accepted = tools.reduce((sum, t) => sum + (tally.get(t.name)?.accepted ?? 0), 0);
    expect(accepted, JSON.stringify(Object.fromEntries(tally))).toBeGreaterThan(tools.length);
  }, 90_000);
});
