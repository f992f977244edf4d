import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiContext, type ApiContext } from '../support/app-context.js';
import { serveOverHttp, type ServedApp } from '../support/http-server.js';
import { countRows } from '../support/row-counts.js';

const NUL = '\u0000';
const nulMessage = (field: string) => `${field}: must not contain the NUL character (U+0000)`;
const MiB = 1024 * 1024;

// Postgres is the database that refuses NUL in text, so these run against it.
describe('hostile input is refused before it reaches a query (postgres)', () => {
  let ctx: ApiContext;
  let served: ServedApp;
  let appShortId: string;
  beforeAll(async () => {
    ctx = await createApiContext('postgres');
    served = await serveOverHttp(ctx.app);
    const created = await ctx.call('POST', '/v1/applications', { name: 'Shop' });
    expect(created.status).toBe(201);
    appShortId = created.body.shortId;
  });
  afterAll(async () => {
    await served?.close();
    await ctx?.close();
  });

  const counts = async () => ({
    applications: await countRows(ctx.db, 'applications'),
    testCases: await countRows(ctx.db, 'test_cases'),
    testPlans: await countRows(ctx.db, 'test_plans'),
  });
  const appName = async () => (await ctx.call('GET', `/v1/applications/${appShortId}`)).body.name as string;

  /** Sends over real HTTP as a client would; the JSON is written by hand where a test needs odd bytes. */
  const send = (
    method: string,
    path: string,
    init: { body?: BodyInit; headers?: Record<string, string>; duplex?: 'half' } = {},
  ) =>
    fetch(`${served.url}${path}`, {
      method,
      ...init,
      headers: { authorization: `Bearer ${ctx.tenant.token}`, ...init.headers },
    } as RequestInit);

  it('NUL in a JSON string, at any depth or in a key, is a 400 naming the field and writes nothing', async () => {
    const before = await counts();
    const cases: [string, string, unknown, string][] = [
      ['POST', '/v1/applications', { name: `Sh${NUL}op` }, 'body.name'],
      [
        'POST',
        '/v1/test-cases',
        { applicationShortId: appShortId, name: 'Checkout', goal: `Buy ${NUL}`, labels: ['smoke'] },
        'body.goal',
      ],
      [
        'POST',
        '/v1/test-cases',
        { applicationShortId: appShortId, name: 'Checkout', goal: 'Buy a cup', labels: ['smoke', `x${NUL}`] },
        'body.labels.1',
      ],
      [
        'POST',
        '/v1/test-plans',
        {
          name: 'Smoke',
          notifications: { slack: { webhookUrl: 'https://hooks.example.com/x', channel: `#q${NUL}a` } },
        },
        'body.notifications.slack.channel',
      ],
      ['POST', '/v1/applications', { name: 'Shop', [`ki${NUL}nd`]: 'web' }, 'body.ki\\u0000nd'],
      ['PATCH', `/v1/applications/${appShortId}`, { name: `Renamed${NUL}` }, 'body.name'],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await ctx.call(method, path, body);
      expect({ path, status: res.status, body: res.body }).toEqual({
        path,
        status: 400,
        body: { message: nulMessage(field) },
      });
    }
    expect(await counts()).toEqual(before);
    expect(await appName()).toBe('Shop');
  });

  it('NUL in a path parameter or a query value is a 400 naming the parameter', async () => {
    const cases: [string, string, string][] = [
      ['GET', '/v1/test-cases?labels=smoke%00', 'query.labels'],
      ['GET', '/v1/run?testPlanShortId=pln_%00', 'query.testPlanShortId'],
      ['GET', `/v1/applications/${appShortId}%00`, 'path.applicationShortId'],
      ['DELETE', '/v1/test-cases/%00', 'path.testCaseId'],
      ['GET', '/v1/run/run_%00abc', 'path.shortId'],
      ['POST', '/v1/run/run_%00abc/cancel', 'path.shortId'],
    ];
    for (const [method, path, field] of cases) {
      const res = await send(method, path);
      expect({ path, status: res.status, body: await res.json() }).toEqual({
        path,
        status: 400,
        body: { message: nulMessage(field) },
      });
    }
    expect(await appName()).toBe('Shop');
  });

  it('a 21 MB body is a 413 before it is parsed, and nothing is written', async () => {
    const before = await counts();
    const body = JSON.stringify({ name: 'Big', padding: 'x'.repeat(21 * 1000 * 1000) });
    const res = await send('POST', '/v1/applications', { body, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      message: `Request body exceeds the ${MiB} byte limit (PROCTOR_MAX_BODY_BYTES)`,
    });
    expect(await counts()).toEqual(before);
  });

  it('a streamed (chunked) body that runs over the limit is a 413 too', async () => {
    const before = await counts();
    const chunk = new TextEncoder().encode(' '.repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"name":"Streamed"'));
      },
      pull(controller) {
        // Valid JSON if it were read to the end, so only the size can refuse it.
        if (sent >= 3 * MiB) return (controller.enqueue(new TextEncoder().encode('}')), controller.close());
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const res = await send('POST', '/v1/applications', {
      body: stream,
      duplex: 'half',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expect((await res.json()).message).toMatch(/exceeds the 1048576 byte limit/);
    expect(await counts()).toEqual(before);
  });

  it('a body just under 1 MiB is accepted', async () => {
    const body = JSON.stringify({ name: 'Padded' }) + ' '.repeat(MiB - 100);
    const res = await send('POST', '/v1/applications', { body, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(201);
    expect((await res.json()).name).toBe('Padded');
  });

  it('a PATCH with no body, or an empty one, is a 400 and changes nothing', async () => {
    const none = await send('PATCH', `/v1/applications/${appShortId}`);
    expect(none.status).toBe(400);
    expect(await none.json()).toEqual({ message: 'Request body is required: a JSON object with the fields to change' });
    const empty = await send('PATCH', `/v1/test-plans/pln_x1x1x1x1x1x1`, {
      body: '',
      headers: { 'content-type': 'application/json' },
    });
    expect(empty.status).toBe(400);
    expect((await empty.json()).message).toMatch(/Request body is required/);
    expect(await appName()).toBe('Shop');
  });

  it('blob uploads to the filesystem store are not held to the JSON limit', async () => {
    const url = new URL(await ctx.deps.blobs.presignPut('builds/big.apk', 60));
    const res = await fetch(`${served.url}${url.pathname}${url.search}`, {
      method: 'PUT',
      body: new Uint8Array(3 * MiB),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ key: 'builds/big.apk', size: 3 * MiB });
  });
});
