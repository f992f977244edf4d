import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSecret } from '../../src/db/secrets.js';
import {
  ensureWebhookSecret,
  gitClientFor,
  webhookSecretCandidates,
  webhookSecretFor,
} from '../../src/services/git-clients.js';
import { GitClients } from '../../src/services/git-client-cache.js';
import { NotFoundError } from '../../src/domain/errors.js';
import { createApiContext, databaseKinds, type ApiContext } from '../support/app-context.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { startFakeGitLab, type FakeGitLab } from '../support/fake-gitlab.js';

describe.each(databaseKinds)('git integrations (%s)', (kind) => {
  let ctx: ApiContext;
  let gh: FakeGitHub;
  let gl: FakeGitLab;
  let app: { appId: number; privateKey: string };
  beforeAll(async () => {
    [ctx, gh, gl] = await Promise.all([createApiContext(kind), startFakeGitHub(), startFakeGitLab()]);
    app = gh.addApp({ slug: 'proctor-ci' });
  });
  afterAll(async () => {
    await Promise.all([ctx.close(), gh.close(), gl.close()]);
  });

  /** Every answer of the test, to check that no secret ever appears in one. */
  const answers: string[] = [];
  const call = async (method: string, path: string, body?: unknown, token?: string) => {
    const res = await ctx.call(method, path, body, token);
    answers.push(JSON.stringify(res.body));
    return res;
  };
  const list = async () =>
    (await call('GET', '/v1/git-integrations')).body.integrations as Array<Record<string, unknown>>;
  const secrets: string[] = [];
  const secret = (label: string) => {
    const value = `${label}-${randomUUID()}`;
    secrets.push(value);
    return value;
  };

  it('creates, lists, gets, updates and deletes a GitHub App integration without ever returning a secret', async () => {
    secrets.push(app.privateKey.split('\n')[1]!);
    const webhookSecret = secret('whsec');
    const created = await call('POST', '/v1/git-integrations', {
      provider: 'github',
      auth: 'app',
      appId: app.appId,
      privateKey: app.privateKey,
      webhookSecret,
      baseUrl: `${gh.url}/`,
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      shortId: expect.stringMatching(/^git-github_.+$/),
      provider: 'github',
      auth: 'app',
      appId: String(app.appId),
      baseUrl: gh.url,
      hasPrivateKey: true,
      hasToken: false,
      hasWebhookSecret: true,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const path = `/v1/git-integrations/${created.body.shortId}`;
    expect((await call('GET', path)).body).toEqual(created.body);
    expect(await list()).toEqual([created.body]);

    // Rotating the webhook secret, then removing it.
    const rotated = await call('PATCH', path, { webhookSecret: secret('whsec2') });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ auth: 'app', hasWebhookSecret: true, hasPrivateKey: true });
    expect(await webhookSecretFor(ctx, 'github', ctx.tenant.projectId)).toBe(secrets.at(-1));
    expect((await call('PATCH', path, { webhookSecret: null })).body).toMatchObject({ hasWebhookSecret: false });
    expect(await webhookSecretFor(ctx, 'github', ctx.tenant.projectId)).toBeUndefined();

    // Switching to a token needs the token; the App's id and key are dropped.
    const refused = await call('PATCH', path, { auth: 'token' });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/^token: required/);
    const switched = await call('PATCH', path, { auth: 'token', token: secret('ghp') });
    expect(switched.body).toMatchObject({ auth: 'token', appId: null, hasPrivateKey: false, hasToken: true });
    const row = await ctx.db
      .selectFrom('git_integrations')
      .selectAll()
      .where('short_id', '=', created.body.shortId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ app_id: null, private_key: null });
    // Sealed at rest; opened, it is the token sent.
    expect(await openSecret(ctx.db, row.token!)).toBe(secrets.at(-1));

    expect((await call('DELETE', path)).body).toEqual({ deleted: true });
    expect((await call('GET', path)).status).toBe(404);
    expect(await list()).toEqual([]);
    expect(answers.join('\n')).not.toMatch(
      new RegExp(secrets.map((s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')),
    );
  });

  it('refuses bad input with a 400 naming the field, and changes nothing', async () => {
    const { privateKey: ecKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const bad: Array<[unknown, RegExp]> = [
      [{ provider: 'github', auth: 'app', appId: 1, privateKey: 'not a key' }, /^privateKey: not a PEM private key/],
      [
        { provider: 'github', auth: 'app', appId: 1, privateKey: ecKey.export({ type: 'pkcs8', format: 'pem' }) },
        /^privateKey: a GitHub App key is an RSA key/,
      ],
      [{ provider: 'github', auth: 'app', appId: 1 }, /privateKey/],
      [{ provider: 'github', auth: 'app', appId: 'twelve', privateKey: app.privateKey }, /appId/],
      [{ provider: 'github', auth: 'token', token: 'x', baseUrl: 'ftp://ghe.example.com' }, /baseUrl/],
      [{ provider: 'gitlab', token: '' }, /token/],
      [{ provider: 'bitbucket', token: 'x' }, /provider/],
      [{ provider: 'github', token: 'x' }, /auth/],
    ];
    for (const [body, message] of bad) {
      const res = await call('POST', '/v1/git-integrations', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    expect(await list()).toEqual([]);

    const gitlab = await call('POST', '/v1/git-integrations', {
      provider: 'gitlab',
      token: secret('glpat'),
      baseUrl: gl.url,
    });
    expect(gitlab.status).toBe(201);
    const path = `/v1/git-integrations/${gitlab.body.shortId}`;
    const second = await call('POST', '/v1/git-integrations', { provider: 'gitlab', token: 'another' });
    expect(second.status).toBe(409);
    expect(second.body.message).toMatch(/already has a GitLab integration/);
    for (const [patch, message] of [
      [{ privateKey: app.privateKey }, /^privateKey: a GitLab integration authenticates with a token only/],
      [{ auth: 'app' }, /^auth: /],
      [{ baseUrl: 'javascript:alert(1)' }, /baseUrl/],
    ] as const) {
      const res = await call('PATCH', path, patch);
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    expect((await call('GET', path)).body).toEqual(gitlab.body);
    expect(answers.join('\n')).not.toContain(secrets.at(-1));
    await call('DELETE', path);
  });

  it("answers 404 for another project's integration and changes nothing", async () => {
    const theirs = await call(
      'POST',
      '/v1/git-integrations',
      { provider: 'gitlab', token: secret('theirs') },
      ctx.other.token,
    );
    expect(theirs.status).toBe(201);
    const path = `/v1/git-integrations/${theirs.body.shortId}`;
    for (const [method, body] of [['GET'], ['PATCH', { token: 'hijack' }], ['DELETE']] as const) {
      const res = await call(method, path, body);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Git integration not found' });
    }
    expect(await list()).toEqual([]);
    const row = await ctx.db
      .selectFrom('git_integrations')
      .select('token')
      .where('short_id', '=', theirs.body.shortId)
      .executeTakeFirstOrThrow();
    expect(await openSecret(ctx.db, row.token!)).toBe(secrets.at(-1));
  });

  it('gives reviews a working client per provider, reusing the GitHub installation token, and finds webhook secrets', async () => {
    const deps = { db: ctx.db, gitClients: new GitClients() };
    const { projectId } = ctx.tenant;
    await expect(gitClientFor(deps, projectId, { provider: 'github', repository: 'acme/shop' })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(gitClientFor(deps, projectId, { provider: 'gitlab', repository: 'acme/shop' })).rejects.toThrow(
      'No GitLab integration in this project',
    );

    const installation = gh.addInstallation(app.appId, ['acme/shop']);
    gh.addPullRequest('acme/shop', {
      number: 12,
      title: 'New checkout',
      files: [{ filename: 'src/checkout.ts', additions: 3, patch: '@@ +1,3 @@\n+a\n+b\n+c' }],
    });
    const created = await call('POST', '/v1/git-integrations', {
      provider: 'github',
      auth: 'app',
      appId: String(app.appId),
      privateKey: app.privateKey,
      webhookSecret: 'gh-hook-secret',
      baseUrl: gh.url,
    });
    expect(created.status).toBe(201);

    const first = await gitClientFor(deps, projectId, { provider: 'github', repository: 'acme/shop' });
    const change = await first.fetchMergeRequest({ provider: 'github', repository: 'acme/shop', number: 12 });
    expect(change).toMatchObject({ title: 'New checkout', files: [{ path: 'src/checkout.ts', additions: 3 }] });
    const second = await gitClientFor(deps, projectId, { provider: 'github', repository: 'acme/shop' });
    await second.createComment({ provider: 'github', repository: 'acme/shop', number: 12 }, 'Testing started');
    expect(second).toBe(first);
    expect(gh.tokenExchanges(installation)).toBe(1);
    expect(gh.comments('acme/shop', 12)).toEqual([
      expect.objectContaining({ body: 'Testing started', author: 'proctor-ci[bot]' }),
    ]);

    // An edited integration gets a new client.
    await call('PATCH', `/v1/git-integrations/${created.body.shortId}`, { webhookSecret: 'gh-hook-secret-2' });
    expect(await gitClientFor(deps, projectId, { provider: 'github', repository: 'acme/shop' })).not.toBe(first);

    // GitLab: the client manages the project webhook with the integration's own secret.
    gl.addProject('acme/web');
    gl.addToken('glpat-acme', ['acme/web']);
    await call('POST', '/v1/git-integrations', { provider: 'gitlab', token: 'glpat-acme', baseUrl: gl.url });
    const hookSecret = await ensureWebhookSecret(ctx, projectId, 'gitlab');
    expect(hookSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(await ensureWebhookSecret(ctx, projectId, 'gitlab')).toBe(hookSecret);
    const gitlab = await gitClientFor(deps, projectId, { provider: 'gitlab', repository: 'acme/web' });
    await gitlab.ensureProjectWebhook('acme/web', {
      url: 'https://proctor.example/webhooks/gitlab',
      secret: hookSecret,
      events: ['merge_requests', 'notes', 'deployments'],
    });
    expect(gl.hooks('acme/web')).toEqual([expect.objectContaining({ token: hookSecret })]);
    expect(
      (await call('GET', '/v1/git-integrations')).body.integrations.find(
        (i: { provider: string }) => i.provider === 'gitlab',
      ),
    ).toMatchObject({ hasWebhookSecret: true });

    const theirs = await call(
      'POST',
      '/v1/git-integrations',
      { provider: 'github', auth: 'token', token: 'ghp_theirs', webhookSecret: 'their-hook-secret' },
      ctx.other.token,
    );
    expect(theirs.status).toBe(201);
    expect((await webhookSecretCandidates(ctx, 'github')).sort((a, b) => a.secret.localeCompare(b.secret))).toEqual([
      { projectId, secret: 'gh-hook-secret-2' },
      { projectId: ctx.other.projectId, secret: 'their-hook-secret' },
    ]);
    expect(await webhookSecretCandidates(ctx, 'gitlab')).toEqual([{ projectId, secret: hookSecret }]);
    expect(answers.join('\n')).not.toContain(hookSecret);
  });
});
