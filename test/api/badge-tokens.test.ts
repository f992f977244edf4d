import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/db/queries/admin.js';
import { createTestPlan } from '../../src/db/queries/test-plans.js';
import { TokenUseRecorder } from '../../src/services/token-use.js';
import { databaseKinds, freshDatabase, useApiContext } from '../support/app-context.js';

// Badge tokens over REST (GET/POST /v1/badge-tokens, DELETE /v1/badge-tokens/{id}) and when a token was last
// used: written when a token authenticates, at most once a minute per token, never failing the request.

describe.each(databaseKinds)("badge tokens over REST, and tokens' last use (%s)", (kind) => {
  const ctx = useApiContext(kind);
  let now = Date.parse('2026-11-30T09:00:00.000Z');
  const clock = () => now;

  beforeAll(async () => {
    ctx.deps.tokenUse = new TokenUseRecorder(ctx.db, { clock });
  });

  const activeBadgeTokens = async () =>
    Number(
      (
        await ctx.db
          .selectFrom('api_tokens')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('kind', '=', 'badge')
          .where('revoked_at', 'is', null)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const badge = (token: string) => ctx.app.request(`/v1/badge.svg?token=${encodeURIComponent(token)}`);
  const lastUsed = async (tokenId: string) =>
    (
      await ctx.db.selectFrom('api_tokens').select('last_used_at').where('id', '=', tokenId).executeTakeFirstOrThrow()
    ).last_used_at?.toISOString() ?? null;
  const listed = async (id: string) =>
    ((await ctx.call('GET', '/v1/badge-tokens')).body.badgeTokens as { id: string }[]).find((t) => t.id === id);

  it('makes a badge token: the token, URL and Markdown once; the list never shows the token; the URL serves the badge', async () => {
    const shortId = await createTestPlan(ctx.db, ctx.tenant.projectId, { name: 'Smoke' });
    const made = await ctx.call('POST', '/v1/badge-tokens', {
      name: 'README badge',
      testPlanShortId: shortId,
      label: 'e2e',
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({ name: 'README badge', lastUsedAt: null, markdown: `![e2e](${made.body.url})` });
    expect(made.body.token).toMatch(/^prb_/);
    expect(made.body.prefix).toBe(made.body.token.slice(0, 8));
    expect(made.body.url).toBe(
      `http://127.0.0.1:3000/v1/badge.svg?token=${made.body.token}&testPlanShortId=${shortId}&label=e2e`,
    );

    const list = await ctx.call('GET', '/v1/badge-tokens');
    expect(list.status).toBe(200);
    expect(list.body.badgeTokens).toEqual([
      {
        id: made.body.id,
        name: 'README badge',
        prefix: made.body.prefix,
        createdAt: made.body.createdAt,
        lastUsedAt: null,
      },
    ]);
    expect(JSON.stringify(list.body)).not.toContain(made.body.token);
    expect((await ctx.app.request(made.body.url.replace('http://127.0.0.1:3000', ''))).status).toBe(200);

    const defaults = await ctx.call('POST', '/v1/badge-tokens', {});
    expect(defaults.status).toBe(201);
    expect(defaults.body).toMatchObject({
      name: 'badge token',
      url: `http://127.0.0.1:3000/v1/badge.svg?token=${defaults.body.token}`,
    });
    const audit = await ctx.call('GET', '/v1/audit-log?kind=token.created');
    expect(audit.body.events.map((e: { subject: string }) => e.subject)).toEqual(
      expect.arrayContaining([made.body.id, defaults.body.id]),
    );
  });

  it('refuses bad input with 400/404 {message} and makes nothing', async () => {
    const before = await activeBadgeTokens();
    const cases: [body: unknown, status: number, message: RegExp][] = [
      [{ name: '' }, 400, /^name: /],
      [{ name: '   ' }, 400, /^name: /],
      [{ name: 'x'.repeat(81) }, 400, /^name: /],
      [{ name: 42 }, 400, /^name: /],
      [{ label: 'y'.repeat(65) }, 400, /^label: /],
      [{ testPlanShortId: 'not-a-plan' }, 400, /^testPlanShortId: /],
      [{ testPlanShortId: 'pln_doesnotexist1' }, 404, /testPlanShortId: Test plan not found/],
      [{ name: 'ok', token: 'prb_mine' }, 400, /token/],
      [[], 400, /./],
      ['{"name":', 400, /JSON/i],
    ];
    for (const [body, status, message] of cases) {
      const res = await ctx.call('POST', '/v1/badge-tokens', body);
      expect(res.status, `${JSON.stringify(body)} -> ${JSON.stringify(res.body)}`).toBe(status);
      expect(res.body.message, JSON.stringify(body)).toMatch(message);
    }
    // Another project's plan is as unknown as a made-up one.
    const othersPlan = await createTestPlan(ctx.db, ctx.other.projectId, { name: 'Theirs' });
    expect((await ctx.call('POST', '/v1/badge-tokens', { testPlanShortId: othersPlan })).status).toBe(404);
    expect(await activeBadgeTokens()).toBe(before);
  });

  it('only an API token reaches them: none is 401, a badge token is 403 here and on the rest of the API', async () => {
    const badgeToken = (await createToken(ctx.db, ctx.tenant.projectId, 'badge')).token;
    const someId = randomUUID();
    const before = await activeBadgeTokens();
    for (const [method, path, body] of [
      ['GET', '/v1/badge-tokens'],
      ['POST', '/v1/badge-tokens', { name: 'minted' }],
      ['DELETE', `/v1/badge-tokens/${someId}`],
      ['GET', '/v1/applications'],
    ] as const) {
      const none = await ctx.call(method, path, body, null);
      expect(none.status, `${method} ${path}`).toBe(401);
      expect(none.body.message).toMatch(/token/i);
      const asBadge = await ctx.call(method, path, body, badgeToken);
      expect(asBadge.status, `${method} ${path}`).toBe(403);
      expect(asBadge.body.message).toBe('A badge token is only valid for GET /v1/badge.svg');
    }
    expect(await activeBadgeTokens()).toBe(before);
  });

  it("revokes a badge token (its URL stops at once); 404 for an API token, another project's, an unknown or revoked id; 400 for a malformed one", async () => {
    const made = (await ctx.call('POST', '/v1/badge-tokens', { name: 'to revoke' })).body;
    const theirs = await createToken(ctx.db, ctx.other.projectId, 'badge');
    const seedTokenId = (
      await ctx.db
        .selectFrom('api_tokens')
        .select('id')
        .where('project_id', '=', ctx.tenant.projectId)
        .where('kind', '=', 'api')
        .executeTakeFirstOrThrow()
    ).id;
    expect((await ctx.call('DELETE', '/v1/badge-tokens/not-a-uuid')).status).toBe(400);
    for (const id of [randomUUID(), theirs.id, seedTokenId]) {
      const res = await ctx.call('DELETE', `/v1/badge-tokens/${id}`);
      expect(res.status, id).toBe(404);
      expect(res.body.message).toBe('Badge token not found');
    }
    expect((await badge(theirs.token)).status).toBe(200);
    expect((await ctx.call('GET', '/v1/applications')).status).toBe(200);

    expect((await badge(made.token)).status).toBe(200);
    const revoked = await ctx.call('DELETE', `/v1/badge-tokens/${made.id.toUpperCase()}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ deleted: true });
    expect((await badge(made.token)).status).toBe(401);
    expect(await listed(made.id)).toBeUndefined();
    expect((await ctx.call('DELETE', `/v1/badge-tokens/${made.id}`)).status).toBe(404);
    const audit = await ctx.call('GET', '/v1/audit-log?kind=token.revoked');
    expect(audit.body.events.map((e: { subject: string }) => e.subject)).toContain(made.id);
  });

  it('writes last use once a minute per token: a badge shown twice within the minute writes once, after it again', async () => {
    const made = (await ctx.call('POST', '/v1/badge-tokens', { name: 'used' })).body;
    const first = new Date(now).toISOString();
    expect((await badge(made.token)).status).toBe(200);
    expect(await lastUsed(made.id)).toBe(first);
    expect(await listed(made.id)).toMatchObject({ lastUsedAt: first });

    now += 30_000;
    expect((await badge(made.token)).status).toBe(200);
    expect(await lastUsed(made.id)).toBe(first);
    now += 29_999;
    expect((await badge(made.token)).status).toBe(200);
    expect(await lastUsed(made.id)).toBe(first);

    now += 1;
    const second = new Date(now).toISOString();
    expect((await badge(made.token)).status).toBe(200);
    expect(await lastUsed(made.id)).toBe(second);
    expect(await listed(made.id)).toMatchObject({ lastUsedAt: second });

    // Another API process (its own recorder, nothing remembered) adds no write within the minute either.
    const elsewhere = new TokenUseRecorder(ctx.db, { clock: () => now + 10_000 });
    await elsewhere.record(made.id);
    expect(await lastUsed(made.id)).toBe(second);

    // A refused use is no use: a badge token sent to the API (403) writes nothing.
    now += 120_000;
    expect((await ctx.call('GET', '/v1/applications', undefined, made.token)).status).toBe(403);
    expect(await lastUsed(made.id)).toBe(second);
  });

  it('writes the last use of API tokens too, and a failed write never fails the request', async () => {
    const api = await createToken(ctx.db, ctx.tenant.projectId, 'api', 'ci');
    now += 3_600_000;
    const at = new Date(now).toISOString();
    expect((await ctx.call('GET', '/v1/applications', undefined, api.token)).status).toBe(200);
    expect(await lastUsed(api.id)).toBe(at);
    now += 1_000;
    expect((await ctx.call('GET', '/v1/badge-tokens', undefined, api.token)).status).toBe(200);
    expect(await lastUsed(api.id)).toBe(at);

    // The recorder's database is gone (closed): every write fails, every request still answers.
    const gone = await freshDatabase('pglite');
    await gone.destroy();
    const recorder = ctx.deps.tokenUse;
    ctx.deps.tokenUse = new TokenUseRecorder(gone, { clock });
    try {
      const made = await ctx.call('POST', '/v1/badge-tokens', { name: 'while the writes fail' }, api.token);
      expect(made.status).toBe(201);
      expect((await badge(made.body.token)).status).toBe(200);
      expect((await ctx.call('GET', '/v1/badge-tokens', undefined, api.token)).status).toBe(200);
    } finally {
      ctx.deps.tokenUse = recorder;
    }
  });
});
