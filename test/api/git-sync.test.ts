// Git sync's setting and its push webhook at the API, over both database kinds: refusals change nothing, another
// project sees nothing, and a push is acted on only when it is signed with the project's secret and moves the
// synced branch (the whole story against the providers: test/e2e/git-sync.test.ts).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedProject } from '../../src/db/queries/admin.js';
import { createApiContext, databaseKinds, type ApiContext } from '../support/app-context.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { deliverGitHub, githubExample, poster } from '../support/webhook-payloads.js';

describe.each(databaseKinds)('Git sync settings and push webhook (%s)', (kind) => {
  let ctx: ApiContext;
  let gh: FakeGitHub;
  const repo = `acme-${randomUUID().slice(0, 6)}/shop`;
  const secret = `whsec-${randomUUID()}`;
  const setting = { provider: 'github', repository: repo, folder: 'e2e/proctor', branch: 'main' };
  beforeAll(async () => {
    [ctx, gh] = await Promise.all([createApiContext(kind), startFakeGitHub()]);
    gh.addToken('ghp_sync', [repo]);
  });
  afterAll(async () => Promise.all([ctx.close(), gh.close()]));

  const push = (ref: string, sign = secret, repository = repo) => {
    const payload = githubExample('push', (p) => typeof p.ref === 'string');
    Object.assign(payload, { ref, after: 'a'.repeat(40), deleted: false });
    payload.repository.full_name = repository;
    return deliverGitHub(poster(ctx.app), sign, 'push', payload);
  };

  it('without a setting: 404 with { message } for the setting, its status and its removal', async () => {
    for (const [method, path] of [
      ['GET', '/v1/git-sync'],
      ['GET', '/v1/git-sync/status'],
      ['DELETE', '/v1/git-sync'],
    ] as const) {
      const res = await ctx.call(method, path);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.message).toMatch(/no Git sync/);
    }
  });

  it('refuses a setting without the integration, then saves one; another project sees none', async () => {
    const refused = await ctx.call('PUT', '/v1/git-sync', setting);
    expect(refused.status).toBe(404);
    expect(refused.body.message).toMatch(/No GitHub integration in this project/);
    expect((await ctx.call('GET', '/v1/git-sync')).status).toBe(404);

    const integration = await ctx.call('POST', '/v1/git-integrations', {
      provider: 'github',
      auth: 'token',
      token: 'ghp_sync',
      webhookSecret: secret,
      baseUrl: gh.url,
    });
    expect(integration.status, JSON.stringify(integration.body)).toBe(201);
    const saved = await ctx.call('PUT', '/v1/git-sync', setting);
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body).toMatchObject({ ...setting, webhookUrl: 'http://127.0.0.1:3000/webhooks/github' });
    expect((await ctx.call('GET', '/v1/git-sync')).body).toEqual(saved.body);
    expect((await ctx.call('GET', '/v1/git-sync/status')).body).toEqual({
      settings: saved.body,
      files: [],
      conflicts: 0,
    });

    const other = await seedProject(ctx.db, { organization: 'Globex', project: 'Other' });
    expect((await ctx.call('GET', '/v1/git-sync', undefined, other.token)).status).toBe(404);
  });

  it('a push is 401 unless signed with the secret; pushes to other branches, tags and deletions are acknowledged and ignored', async () => {
    expect((await push('refs/heads/main', 'wrong-secret')).status).toBe(401);
    expect((await push('refs/heads/main', secret, 'acme/unknown')).status).toBe(401);
    const other = await push('refs/heads/feature');
    expect(other).toMatchObject({ status: 200, body: { message: expect.stringMatching(/a push to feature/) } });
    const tag = await push('refs/tags/v1.0.0');
    expect(tag).toMatchObject({ status: 200, body: { message: expect.stringMatching(/not a push of a commit/) } });
  });

  it('stops syncing: the setting is gone and a push for the repository is no longer accepted', async () => {
    expect((await ctx.call('DELETE', '/v1/git-sync')).body).toEqual({ deleted: true });
    expect((await ctx.call('GET', '/v1/git-sync')).status).toBe(404);
    expect((await push('refs/heads/main')).status).toBe(401);
  });
});
