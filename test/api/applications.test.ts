import { describe, expect, it } from 'vitest';
import { databaseKinds, useApiContext } from '../support/app-context.js';

describe.each(databaseKinds)('applications and environments (%s)', (kind) => {
  const ctx = useApiContext(kind);

  it('creates, lists, updates and deletes an application', async () => {
    const created = await ctx.call('POST', '/v1/applications', { name: 'Shop', kind: 'web' });
    expect(created.status).toBe(201);
    expect(created.body.shortId).toMatch(/^app(-.+_.+|_.+)$/);
    expect(created.body).toMatchObject({ name: 'Shop', kind: 'web', defaultEnvironmentShortId: null });

    const list = await ctx.call('GET', '/v1/applications');
    expect(list.status).toBe(200);
    expect(list.body.applications.map((a: { shortId: string }) => a.shortId)).toContain(created.body.shortId);

    const renamed = await ctx.call('PATCH', `/v1/applications/${created.body.shortId}`, { name: 'Shop web' });
    expect(renamed.body.name).toBe('Shop web');

    const deleted = await ctx.call('DELETE', `/v1/applications/${created.body.shortId}`);
    expect(deleted.body).toEqual({ deleted: true });
    expect((await ctx.call('GET', `/v1/applications/${created.body.shortId}`)).status).toBe(404);
  });

  it('makes the first environment the default and switches default on request', async () => {
    const app = (await ctx.call('POST', '/v1/applications', { name: 'Todo' })).body;
    expect(app.kind).toBe('web');
    const base = `/v1/applications/${app.shortId}/environments`;
    const staging = await ctx.call('POST', base, { name: 'Staging', url: 'https://staging.todo.test' });
    expect(staging.status).toBe(201);
    expect(staging.body).toMatchObject({
      name: 'Staging',
      url: 'https://staging.todo.test',
      isProduction: false,
      isDefault: true,
    });
    const prod = await ctx.call('POST', base, { name: 'Production', url: 'https://todo.test', isProduction: true });
    expect(prod.body).toMatchObject({ isProduction: true, isDefault: false });

    const list = await ctx.call('GET', base);
    expect(list.body.environments.map((e: { name: string }) => e.name)).toEqual(['Staging', 'Production']);

    await ctx.call('PATCH', `${base}/${prod.body.shortId}`, { isDefault: true });
    expect((await ctx.call('GET', `/v1/applications/${app.shortId}`)).body.defaultEnvironmentShortId).toBe(
      prod.body.shortId,
    );

    // Deleting the default falls back to the remaining environment.
    await ctx.call('DELETE', `${base}/${prod.body.shortId}`);
    expect((await ctx.call('GET', `/v1/applications/${app.shortId}`)).body.defaultEnvironmentShortId).toBe(
      staging.body.shortId,
    );
  });

  it('validates input with a message naming the field, and writes nothing', async () => {
    const before = (await ctx.call('GET', '/v1/applications')).body.applications.length;
    const noName = await ctx.call('POST', '/v1/applications', { kind: 'web' });
    expect(noName.status).toBe(400);
    expect(noName.body.message).toMatch(/name/);
    const badKind = await ctx.call('POST', '/v1/applications', { name: 'X', kind: 'desktop' });
    expect(badKind.status).toBe(400);
    expect(badKind.body.message).toMatch(/kind/);
    const app = (await ctx.call('POST', '/v1/applications', { name: 'Envs' })).body;
    const both = await ctx.call('POST', `/v1/applications/${app.shortId}/environments`, {
      name: 'E',
      url: 'https://a.test',
      applicationBuildShortId: 'build_x',
    });
    expect(both.status).toBe(400);
    const neither = await ctx.call('POST', `/v1/applications/${app.shortId}/environments`, { name: 'E' });
    expect(neither.status).toBe(400);
    expect(neither.body.message).toMatch(/url/);
    const ftp = await ctx.call('POST', `/v1/applications/${app.shortId}/environments`, {
      name: 'E',
      url: 'ftp://a.test',
    });
    expect(ftp.status).toBe(400);
    expect((await ctx.call('GET', `/v1/applications/${app.shortId}/environments`)).body.environments).toEqual([]);
    expect((await ctx.call('GET', '/v1/applications')).body.applications.length).toBe(before + 1);
  });

  it('rejects ids that do not match the short-id pattern with 400', async () => {
    const res = await ctx.call('GET', '/v1/applications/not-an-app-id');
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/applicationShortId/);
  });

  it("hides another project's application and environments (404, never 200 or 403)", async () => {
    const theirs = (await ctx.call('POST', '/v1/applications', { name: 'Theirs' }, ctx.other.token)).body;
    const theirEnv = (
      await ctx.call(
        'POST',
        `/v1/applications/${theirs.shortId}/environments`,
        { name: 'Prod', url: 'https://theirs.test' },
        ctx.other.token,
      )
    ).body;
    const attempts = [
      ctx.call('GET', `/v1/applications/${theirs.shortId}`),
      ctx.call('PATCH', `/v1/applications/${theirs.shortId}`, { name: 'Mine now' }),
      ctx.call('DELETE', `/v1/applications/${theirs.shortId}`),
      ctx.call('GET', `/v1/applications/${theirs.shortId}/environments`),
      ctx.call('POST', `/v1/applications/${theirs.shortId}/environments`, { name: 'X', url: 'https://x.test' }),
      ctx.call('GET', `/v1/applications/${theirs.shortId}/environments/${theirEnv.shortId}`),
      ctx.call('PATCH', `/v1/applications/${theirs.shortId}/environments/${theirEnv.shortId}`, { name: 'Y' }),
      ctx.call('DELETE', `/v1/applications/${theirs.shortId}/environments/${theirEnv.shortId}`),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(404);
      expect(typeof res.body.message).toBe('string');
    }
    const mine = (await ctx.call('POST', '/v1/applications', { name: 'Mine' })).body;
    // Their environment through my application is not found either.
    expect(
      (await ctx.call('PATCH', `/v1/applications/${mine.shortId}`, { defaultEnvironmentShortId: theirEnv.shortId }))
        .status,
    ).toBe(404);
    expect(
      (await ctx.call('GET', '/v1/applications')).body.applications.map((a: { name: string }) => a.name),
    ).not.toContain('Theirs');
    expect((await ctx.call('GET', `/v1/applications/${theirs.shortId}`, undefined, ctx.other.token)).body.name).toBe(
      'Theirs',
    );
  });
});
