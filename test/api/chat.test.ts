import { beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, useApiContext } from '../support/app-context.js';
import { countRows } from '../support/row-counts.js';

// The chat contract without a worker: what the API accepts, writes and answers. Turns stay INITIATED here;
// test/e2e/chat.test.ts runs them.
describe.each(databaseKinds)('chat API (%s)', (kind) => {
  const ctx = useApiContext(kind);
  let appShortId: string;
  let envShortId: string;

  beforeAll(async () => {
    appShortId = (await ctx.call('POST', '/v1/applications', { name: 'Shop' })).body.shortId;
    envShortId = (
      await ctx.call('POST', `/v1/applications/${appShortId}/environments`, {
        name: 'Staging',
        url: 'https://staging.shop.test',
      })
    ).body.shortId;
  });

  const chatRows = () => countRows(ctx.db, 'chats');
  const messageRows = () => countRows(ctx.db, 'chat_messages');

  it('creates a conversation: 202, source api, no messages yet; the reply is INITIATED', async () => {
    const created = await ctx.call('POST', '/v1/chat', {
      message: 'Which applications do I have?',
      applicationOverrides: [{ applicationShortId: appShortId, environment: { shortId: envShortId } }],
    });
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({ source: 'api', messages: [], title: null });
    expect(created.body.shortId).toMatch(/^chat(-.+_.+|_.+)$/);
    expect(created.body.url).toBe(`https://app.proctor.test/chats/${created.body.shortId}`);

    const got = await ctx.call('GET', `/v1/chat/${created.body.shortId}`);
    expect(got.status).toBe(200);
    // Newest first: the assistant's placeholder, then the user's message.
    expect(got.body.messages.map((m: any) => [m.role, m.status, m.isStreaming, m.text])).toEqual([
      ['assistant', 'INITIATED', false, ''],
      ['user', 'COMPLETED', false, 'Which applications do I have?'],
    ]);
    const stored = await ctx.db
      .selectFrom('chats')
      .select('application_overrides')
      .where('short_id', '=', created.body.shortId)
      .executeTakeFirstOrThrow();
    expect(stored.application_overrides).toEqual([
      { applicationShortId: appShortId, environment: { shortId: envShortId } },
    ]);
  });

  it('answers a follow-up with the existing messages, newest first, and honours ?limit', async () => {
    const { shortId } = (await ctx.call('POST', '/v1/chat', { message: 'first' })).body;
    const follow = await ctx.call('POST', `/v1/chat/${shortId}`, { message: 'second' });
    expect(follow.status).toBe(202);
    expect(follow.body.messages.map((m: any) => `${m.role}:${m.text}`)).toEqual([
      'assistant:',
      'user:second',
      'assistant:',
      'user:first',
    ]);
    const limited = await ctx.call('GET', `/v1/chat/${shortId}?limit=1`);
    expect(limited.body.messages).toHaveLength(1);
    expect(limited.body.messages[0]).toMatchObject({ role: 'assistant', status: 'INITIATED' });
    expect((await ctx.call('GET', `/v1/chat/${shortId}?limit=0`)).status).toBe(400);
  });

  it('makes a retried request with the same Idempotency-Key one message', async () => {
    const before = await messageRows();
    const send = (path: string, message: string, key: string) =>
      ctx.app.request(path, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ctx.tenant.token}`,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        body: JSON.stringify({ message }),
      });
    const a = await send('/v1/chat', 'hello', 'create-1');
    const b = await send('/v1/chat', 'hello', 'create-1');
    expect([a.status, b.status]).toEqual([202, 202]);
    const shortId = ((await a.json()) as { shortId: string }).shortId;
    expect(((await b.json()) as { shortId: string }).shortId).toBe(shortId);

    const c = await send(`/v1/chat/${shortId}`, 'again', 'follow-1');
    const d = await send(`/v1/chat/${shortId}`, 'again', 'follow-1');
    expect([c.status, d.status]).toEqual([202, 202]);
    expect(await messageRows()).toBe(before + 4);
    expect(((await d.json()) as { messages: unknown[] }).messages).toHaveLength(4);
  });

  it('rejects bad input with a 400 naming the field, and writes nothing', async () => {
    const before = [await chatRows(), await messageRows()];
    const cases: [unknown, RegExp][] = [
      [{}, /^message: /],
      [{ message: '' }, /^message: /],
      [
        { message: 'hi', applicationOverrides: [{ applicationShortId: appShortId }] },
        /applicationOverrides\.0\.environment/,
      ],
      [
        {
          message: 'hi',
          applicationOverrides: [
            { applicationShortId: appShortId, environment: { url: 'https://a.test', shortId: envShortId } },
          ],
        },
        /applicationOverrides\.0\.environment/,
      ],
      [
        { message: 'hi', applicationOverrides: [{ applicationShortId: 'shop', environment: { shortId: envShortId } }] },
        /applicationShortId: must be a application short id/,
      ],
      [
        {
          message: 'hi',
          applicationOverrides: [{ applicationShortId: appShortId, environment: { url: 'ftp://x.test' } }],
        },
        /environment/,
      ],
    ];
    for (const [body, message] of cases) {
      const res = await ctx.call('POST', '/v1/chat', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    const twice = await ctx.call('POST', '/v1/chat', {
      message: 'hi',
      applicationOverrides: [
        { applicationShortId: appShortId, environment: { shortId: envShortId } },
        { applicationShortId: appShortId, environment: { url: 'https://b.test' } },
      ],
    });
    expect(twice).toMatchObject({
      status: 400,
      body: { message: `applicationOverrides.1.applicationShortId: ${appShortId} is listed twice` },
    });
    expect((await ctx.call('POST', '/v1/chat', 'not json')).status).toBe(400);
    expect(await Promise.all([chatRows(), messageRows()])).toEqual(before);
  });

  it('is 404 for unknown references and for conversations of another project', async () => {
    const missingApp = await ctx.call('POST', '/v1/chat', {
      message: 'hi',
      applicationOverrides: [{ applicationShortId: 'app_nope', environment: { url: 'https://a.test' } }],
    });
    expect(missingApp).toMatchObject({ status: 404, body: { message: 'Application not found: app_nope' } });
    const missingEnv = await ctx.call('POST', '/v1/chat', {
      message: 'hi',
      applicationOverrides: [{ applicationShortId: appShortId, environment: { shortId: 'env_nope' } }],
    });
    expect(missingEnv.status).toBe(404);

    const { shortId } = (await ctx.call('POST', '/v1/chat', { message: 'mine' })).body;
    for (const [method, path, body] of [
      ['GET', `/v1/chat/${shortId}`],
      ['POST', `/v1/chat/${shortId}`, { message: 'theirs' }],
      ['POST', `/v1/chat/${shortId}/cancel`],
    ] as const) {
      const res = await ctx.call(method, path, body, ctx.other.token);
      expect(res, `${method} ${path}`).toMatchObject({ status: 404, body: { message: 'Conversation not found' } });
    }
    expect((await ctx.call('GET', '/v1/chat/chat_unknown')).status).toBe(404);
    expect((await ctx.call('GET', '/v1/chat/conversation-1')).status).toBe(400);
    expect((await ctx.call('GET', '/v1/chat', undefined, ctx.other.token)).body.chats).toEqual([]);
  });

  it("lists the project's conversations, paged, most recently active first", async () => {
    const all = await ctx.call('GET', '/v1/chat?limit=200');
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(all.body.chats.length);
    expect(all.body.total).toBe(await chatRows());
    const page = await ctx.call('GET', '/v1/chat?limit=2&offset=1');
    expect(page.body).toMatchObject({ limit: 2, offset: 1, total: all.body.total });
    expect(page.body.chats.map((c: any) => c.shortId)).toEqual(all.body.chats.slice(1, 3).map((c: any) => c.shortId));
    expect(all.body.chats[0]).not.toHaveProperty('messages');
  });
});
