import { describe, expect, it } from 'vitest';
import { createToken, setOrganizationSuspended } from '../../src/db/queries/admin.js';
import { createLogger } from '../../src/logger.js';
import { createApp } from '../../src/api/app.js';
import { createDatabase } from '../../src/db/database.js';
import { databaseKinds, useApiContext } from '../support/app-context.js';

describe.each(databaseKinds)('authentication and error envelope (%s)', (kind) => {
  const ctx = useApiContext(kind);
  const logLines: string[] = [];

  it('401 without a token, with a malformed header, or with an unknown token', async () => {
    const missing = await ctx.call('GET', '/v1/applications', undefined, null);
    expect(missing.status).toBe(401);
    expect(missing.body.message).toMatch(/Authorization: Bearer/);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);

    const basic = await ctx.app.request('/v1/applications', { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(basic.status).toBe(401);
    expect(await basic.json()).toEqual({ message: 'Invalid API token' });

    for (const token of ['prt_doesnotexist', 'nonsense', ctx.tenant.token + 'x', ctx.tenant.token.slice(0, -1)]) {
      const res = await ctx.call('GET', '/v1/applications', undefined, token);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: 'Invalid API token' });
    }
  });

  it('stores tokens only as SHA-256 hashes', async () => {
    const rows = await ctx.db.selectFrom('api_tokens').select(['token_hash', 'prefix']).execute();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.token_hash).not.toContain(ctx.tenant.token);
    }
    const text = JSON.stringify(await ctx.db.selectFrom('api_tokens').selectAll().execute());
    expect(text).not.toContain(ctx.tenant.token);
  });

  it('403 for a badge token on the API', async () => {
    const { token } = await createToken(ctx.db, ctx.tenant.projectId, 'badge');
    expect(token).toMatch(/^prb_/);
    const res = await ctx.call('GET', '/v1/applications', undefined, token);
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/badge/i);
  });

  it('403 while the organization is suspended, and back after unsuspending', async () => {
    const { organizationId, token } = await (async () => {
      const org = await ctx.db
        .selectFrom('projects')
        .select('organization_id')
        .where('id', '=', ctx.other.projectId)
        .executeTakeFirstOrThrow();
      return { organizationId: org.organization_id, token: ctx.other.token };
    })();
    await setOrganizationSuspended(ctx.db, organizationId, true);
    const suspended = await ctx.call('GET', '/v1/applications', undefined, token);
    expect(suspended.status).toBe(403);
    expect(suspended.body.message).toMatch(/suspended/);
    // Another organization is unaffected.
    expect((await ctx.call('GET', '/v1/applications')).status).toBe(200);
    await setOrganizationSuspended(ctx.db, organizationId, false);
    expect((await ctx.call('GET', '/v1/applications', undefined, token)).status).toBe(200);
  });

  it('400 for malformed JSON, naming the problem, and nothing is written', async () => {
    const res = await ctx.call('POST', '/v1/applications', '{"name": "Shop",');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Malformed JSON in request body' });
    expect((await ctx.call('GET', '/v1/applications')).body.applications).toEqual([]);
  });

  it('415 for a body that is not JSON', async () => {
    const res = await ctx.app.request('/v1/applications', {
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.tenant.token}`, 'content-type': 'text/plain' },
      body: 'name=Shop',
    });
    expect(res.status).toBe(415);
    expect(await res.json()).toEqual({ message: 'Content-Type must be application/json' });
  });

  it('400 naming the field for a missing body', async () => {
    const res = await ctx.app.request('/v1/applications', {
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.tenant.token}` },
    });
    expect(res.status).toBe(400);
    expect((await res.json()).message).toMatch(/name/);
  });

  it('404 with a message for an unknown route, authenticated or not', async () => {
    const res = await ctx.call('GET', '/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body.message).toMatch(/No route for GET \/v1\/nothing-here/);
    const outside = await ctx.call('GET', '/nowhere', undefined, null);
    expect(outside.status).toBe(404);
    expect(typeof outside.body.message).toBe('string');
  });

  it('405 with an Allow header for a wrong method', async () => {
    const res = await ctx.call('PUT', '/v1/applications', { name: 'x' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('GET');
    expect(res.headers.get('allow')).toContain('POST');
    expect(res.body.message).toMatch(/not allowed/);
  });

  it('500 hides internals; the request id in the header is the one in the log', async () => {
    // The database going away mid-flight is the realistic unhandled error.
    const unreachable = createDatabase({
      kind: 'postgres',
      url: 'postgres://proctor:secret-password@127.0.0.1:1/proctor',
    });
    const broken = createApp({
      ...ctx.deps,
      db: unreachable,
      logger: createLogger('info', {}, (line) => logLines.push(line)),
    });
    const res = await broken.request('/v1/applications', { headers: { authorization: `Bearer ${ctx.tenant.token}` } });
    await unreachable.destroy();
    expect(res.status).toBe(500);
    const requestId = res.headers.get('x-request-id');
    expect(requestId).toBeTruthy();
    const body = (await res.json()) as { message: string };
    expect(Object.keys(body)).toEqual(['message']);
    expect(body.message).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|secret/);
    expect(body.message).toContain(requestId);
    const logged = logLines
      .map((l) => JSON.parse(l) as { requestId?: string; err?: { message: string } })
      .find((l) => l.requestId === requestId);
    expect(logged?.err?.message).toMatch(/ECONNREFUSED/);
  });

  it('echoes a caller-supplied request id', async () => {
    const res = await ctx.app.request('/v1/applications', {
      headers: { authorization: `Bearer ${ctx.tenant.token}`, 'x-request-id': 'ci-job-42' },
    });
    expect(res.headers.get('x-request-id')).toBe('ci-job-42');
  });
});
