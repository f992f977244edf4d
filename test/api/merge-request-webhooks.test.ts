import { randomBytes, randomUUID } from 'node:crypto';
import { Webhooks } from '@octokit/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countDeliveries } from '../../src/db/queries/merge-requests.js';
import { workflowIds } from '../../workflows/shared.js';
import { createApiContext, type ApiContext } from '../support/app-context.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { startFakeGitLab, type FakeGitLab } from '../support/fake-gitlab.js';
import { deliverGitHub, githubExample, poster } from '../support/webhook-payloads.js';
import { createApp } from '../../src/api/app.js';
import { createTemporalClientProvider } from '../../src/temporal/client.js';
import { silentLogger } from '../../src/logger.js';
import { resendPendingDeliveries } from '../../src/services/webhooks.js';
import { renderMetrics } from '../../src/metrics.js';
import { parseSamples, sumOf } from '../support/prometheus-text.js';

/** proctor_webhook_deliveries_total{provider="github"} by outcome, as a scrape reads it. */
async function deliveryCounts(): Promise<Record<string, number>> {
  const samples = parseSamples(await renderMetrics());
  const outcomes = ['accepted', 'ignored', 'invalid', 'unauthorized'];
  return Object.fromEntries(
    outcomes.map((outcome) => [
      outcome,
      sumOf(samples, 'proctor_webhook_deliveries_total', { provider: 'github', outcome }),
    ]),
  );
}

// The webhook endpoints and the settings behind them, through the real app on Postgres and the test Temporal server
// (no worker: a signalled review just waits, which is all these tests look at). GitHub payloads are the real ones
// of @octokit/webhooks-examples, signed as GitHub signs; GitLab's are shaped as GitLab documents them.

describe('merge-request review webhooks and settings', () => {
  let ctx: ApiContext;
  let gh: FakeGitHub;
  let gl: FakeGitLab;
  const githubSecret = `whsec-${randomUUID()}`;
  const repo = `octo-${randomBytes(3).toString('hex')}/Hello-World`;
  const gitlabRepo = `group-${randomBytes(3).toString('hex')}/shop`;
  const started: string[] = [];

  beforeAll(async () => {
    [ctx, gh, gl] = await Promise.all([createApiContext('postgres'), startFakeGitHub(), startFakeGitLab()]);
    const app = gh.addApp({ slug: 'proctor' });
    gh.addInstallation(app.appId, [repo]);
    gl.addProject(gitlabRepo);
    gl.addToken('glpat-test', [gitlabRepo]);
    expect(
      (
        await ctx.call('POST', '/v1/git-integrations', {
          provider: 'github',
          auth: 'app',
          appId: String(app.appId),
          privateKey: app.privateKey,
          webhookSecret: githubSecret,
          baseUrl: gh.url,
        })
      ).status,
    ).toBe(201);
    expect(
      (await ctx.call('POST', '/v1/git-integrations', { provider: 'gitlab', token: 'glpat-test', baseUrl: gl.url }))
        .status,
    ).toBe(201);
  });
  afterAll(async () => {
    const client = await ctx.deps.temporal.get();
    await Promise.all(
      started.map((id) =>
        client.workflow
          .getHandle(id)
          .terminate('test done')
          .catch(() => undefined),
      ),
    );
    await Promise.all([ctx.close(), gh.close(), gl.close()]);
  });

  const post = (path: string, body: string, headers: Record<string, string>) => poster(ctx.app)(path, body, headers);
  const github = async (event: string, payload: unknown, opts: { deliveryId?: string; secret?: string } = {}) => {
    const body = JSON.stringify(payload);
    const signature = await new Webhooks({ secret: opts.secret ?? githubSecret }).sign(body);
    return post('/webhooks/github', body, {
      'x-github-event': event,
      'x-github-delivery': opts.deliveryId ?? randomUUID(),
      'x-hub-signature-256': signature,
    });
  };
  const signalsOf = async (workflowId: string) => {
    const history = await (await ctx.deps.temporal.get()).workflow.getHandle(workflowId).fetchHistory();
    return (history.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes).length;
  };

  it('saves settings per repository, without secrets; refuses bad input and a repository of another project', async () => {
    const saved = await ctx.call('PUT', '/v1/merge-request-review-settings', {
      provider: 'github',
      repository: repo,
      reviewContext: 'Focus on checkout',
      commentOnOpen: true,
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({
      provider: 'github',
      repository: repo,
      reviewContext: 'Focus on checkout',
      autoRun: true,
      includeDrafts: false,
      commentOnOpen: true,
      environmentMapping: {},
      handle: '@proctor',
      webhookUrl: 'http://127.0.0.1:3000/webhooks/github',
      webhookId: null,
    });
    const changed = await ctx.call('PUT', '/v1/merge-request-review-settings', {
      provider: 'github',
      repository: repo,
      handle: 'QA.Bot',
    });
    expect(changed.body).toMatchObject({ id: saved.body.id, handle: '@QA.Bot', reviewContext: 'Focus on checkout' });
    expect((await ctx.call('GET', `/v1/merge-request-review-settings/${saved.body.id}`)).body.handle).toBe('@QA.Bot');
    await ctx.call('PUT', '/v1/merge-request-review-settings', {
      provider: 'github',
      repository: repo,
      handle: '@proctor',
    });

    for (const [body, status, message] of [
      [{ provider: 'github', repository: 'no-slash' }, 400, /repository must be/],
      [{ provider: 'bitbucket', repository: 'a/b' }, 400, /provider/],
      [
        { provider: 'github', repository: 'a/b', environmentMapping: { preview: 'app_doesnotexist1' } },
        404,
        /Application not found: app_doesnotexist1/,
      ],
      [{ provider: 'github', repository: 'a/b', webhookSecret: 'x' }, 400, /webhookSecret|Unrecognized/i],
    ] as const) {
      const res = await ctx.call('PUT', '/v1/merge-request-review-settings', body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.message).toMatch(message);
    }
    const taken = await ctx.call(
      'PUT',
      '/v1/merge-request-review-settings',
      { provider: 'github', repository: repo },
      ctx.other.token,
    );
    expect(taken.status).toBe(409);
    expect(taken.body.message).toBe(`github repository ${repo} is connected to another project`);
    expect(
      (await ctx.call('GET', `/v1/merge-request-review-settings/${saved.body.id}`, undefined, ctx.other.token)).status,
    ).toBe(404);
    expect(
      (await ctx.call('GET', '/v1/merge-request-review-settings')).body.settings.map(
        (s: { repository: string }) => s.repository,
      ),
    ).toEqual([repo]);
  });

  it('saving GitLab settings creates the project hook with the integration secret, and a second save refreshes the same hook', async () => {
    const saved = await ctx.call('PUT', '/v1/merge-request-review-settings', {
      provider: 'gitlab',
      repository: gitlabRepo,
      environmentMapping: {},
    });
    expect(saved.status).toBe(200);
    const hooks = gl.hooks(gitlabRepo);
    expect(hooks).toHaveLength(1);
    expect(hooks[0]).toMatchObject({
      url: 'http://127.0.0.1:3000/webhooks/gitlab',
      events: expect.objectContaining({
        merge_requests_events: true,
        note_events: true,
        deployment_events: true,
        pipeline_events: true,
      }),
    });
    expect(hooks[0]!.token).toMatch(/^[0-9a-f]{64}$/);
    expect(saved.body.webhookId).toBe(String(hooks[0]!.id));
    expect(JSON.stringify(saved.body)).not.toContain(hooks[0]!.token!);
    await ctx.call('PUT', '/v1/merge-request-review-settings', {
      provider: 'gitlab',
      repository: gitlabRepo,
      autoRun: false,
    });
    expect(gl.hooks(gitlabRepo)).toHaveLength(1);

    // No GitLab integration: nothing is saved. GitLab not answering: saved, and the answer says the hook is missing.
    const none = await ctx.call(
      'PUT',
      '/v1/merge-request-review-settings',
      { provider: 'gitlab', repository: 'other-group/app' },
      ctx.other.token,
    );
    expect(none).toMatchObject({ status: 404, body: { message: 'No GitLab integration in this project' } });
    expect(
      (await ctx.call('GET', '/v1/merge-request-review-settings', undefined, ctx.other.token)).body.settings,
    ).toEqual([]);
    gl.failNext('hooks.list', 1, 503);
    const down = await ctx.call('PUT', '/v1/merge-request-review-settings', {
      provider: 'gitlab',
      repository: gitlabRepo,
      includeDrafts: true,
    });
    expect(down.status).toBe(200);
    expect(down.body).toMatchObject({ includeDrafts: true, webhookId: saved.body.webhookId });
    expect(down.body.webhookProblem).toMatch(/GitLab .*503.*save the settings again to create the project hook$/);
    expect(
      (await ctx.call('GET', `/v1/merge-request-review-settings/${saved.body.id}`)).body.webhookProblem,
    ).toBeUndefined();
  });

  it('a bad signature is 401 and records nothing; the same delivery twice is processed once', async () => {
    const payload = githubExample('pull_request', (p) => p.action === 'opened');
    payload.repository.full_name = repo;
    const workflowId = workflowIds.mergeRequestReview('github', repo, payload.number);
    started.push(workflowId);
    const before = await deliveryCounts();

    const forged = await github('pull_request', payload, { secret: 'not-the-secret' });
    expect(forged).toEqual({
      status: 401,
      body: { message: 'Unauthorized: X-Hub-Signature-256 is missing or does not match' },
    });
    const unsigned = await post('/webhooks/github', JSON.stringify(payload), {
      'x-github-event': 'pull_request',
      'x-github-delivery': randomUUID(),
    });
    expect(unsigned).toEqual(forged);
    expect(await countDeliveries(ctx.db, 'github')).toBe(0);
    await expect((await ctx.deps.temporal.get()).workflow.getHandle(workflowId).describe()).rejects.toThrow(
      /not found/i,
    );

    const deliveryId = randomUUID();
    const first = await github('pull_request', payload, { deliveryId });
    expect(first).toEqual({ status: 202, body: { message: 'Signalled 1 merge request review(s)' } });
    const again = await github('pull_request', payload, { deliveryId });
    expect(again).toEqual({ status: 200, body: { message: `Delivery ${deliveryId} was already processed` } });
    expect(await countDeliveries(ctx.db, 'github')).toBe(1);
    expect(await signalsOf(workflowId)).toBe(1);
    // The process's metrics (docs/operations.md) count each delivery by its answer.
    const after = await deliveryCounts();
    expect(Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v - before[k]!]))).toEqual({
      accepted: 1,
      ignored: 1,
      invalid: 0,
      unauthorized: 2,
    });
    const head = await ctx.db
      .selectFrom('merge_requests')
      .selectAll()
      .where('repository', '=', repo)
      .executeTakeFirstOrThrow();
    expect(head).toMatchObject({ number: payload.number, head_sha: payload.pull_request.head.sha, state: 'open' });
  });

  it('a deployment status signals the open merge request at that commit; comments without a URL do not', async () => {
    const status = githubExample('deployment_status', (p) => p.deployment_status.state === 'success');
    status.repository.full_name = repo;
    status.deployment.sha = githubExample('pull_request', (p) => p.action === 'opened').pull_request.head.sha;
    status.deployment_status.target_url = 'https://pr-2.preview.test';
    const workflowId = workflowIds.mergeRequestReview('github', repo, 2);
    const before = await signalsOf(workflowId);
    expect(await github('deployment_status', status)).toEqual({
      status: 202,
      body: { message: 'Signalled 1 merge request review(s)' },
    });
    expect(await signalsOf(workflowId)).toBe(before + 1);
    const stored = await ctx.db
      .selectFrom('merge_request_deployments')
      .selectAll()
      .where('repository', '=', repo)
      .execute();
    expect(stored.map((d) => [d.environment, d.url])).toEqual([
      [status.deployment.environment, 'https://pr-2.preview.test'],
    ]);

    const comment = githubExample('issue_comment', (p) => p.action === 'created');
    comment.repository.full_name = repo;
    comment.issue.pull_request = { url: 'https://api.github.com/repos/x/y/pulls/2' };
    comment.issue.number = 2;
    comment.comment.body = '@proctor please have a look';
    expect((await github('issue_comment', comment)).body.message).toBe('Recorded; no open merge request is affected');
    comment.comment.body = '@PROCTOR please test https://pr-2-manual.preview.test';
    expect((await github('issue_comment', comment)).status).toBe(202);
    expect(await signalsOf(workflowId)).toBe(before + 2);
  });

  it('GitLab: the X-Gitlab-Token must match; Idempotency-Key dedupes; an unknown repository, a body that is not JSON and an unsigned ping are the same 401', async () => {
    const secret = gl.hooks(gitlabRepo)[0]!.token!;
    const payload = {
      object_kind: 'merge_request',
      event_type: 'merge_request',
      user: { id: 1, name: 'Administrator', username: 'root' },
      project: { id: 1, name: 'shop', path_with_namespace: gitlabRepo, web_url: `${gl.url}/${gitlabRepo}` },
      object_attributes: {
        iid: 5,
        title: 'Cart badge',
        url: `${gl.url}/${gitlabRepo}/-/merge_requests/5`,
        source_branch: 'feature/cart',
        target_branch: 'main',
        state: 'opened',
        draft: false,
        work_in_progress: false,
        action: 'open',
        last_commit: {
          id: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
          message: 'Cart badge',
          author: { name: 'Root', email: 'root@example.com' },
        },
      },
      changes: {},
    };
    const body = JSON.stringify(payload);
    const headers = (token: string, key: string) => ({
      'x-gitlab-event': 'Merge Request Hook',
      'x-gitlab-token': token,
      'idempotency-key': key,
      'x-gitlab-event-uuid': randomUUID(),
    });
    const key = randomUUID();
    const refused = { status: 401, body: { message: 'Unauthorized: X-Gitlab-Token is missing or does not match' } };
    expect(await post('/webhooks/gitlab', body, headers('wrong', key))).toEqual(refused);
    expect(await countDeliveries(ctx.db, 'gitlab')).toBe(0);
    started.push(workflowIds.mergeRequestReview('gitlab', gitlabRepo, 5));
    expect((await post('/webhooks/gitlab', body, headers(secret, key))).status).toBe(202);
    expect((await post('/webhooks/gitlab', body, headers(secret, key))).status).toBe(200);
    expect(await countDeliveries(ctx.db, 'gitlab')).toBe(1);
    expect(await signalsOf(workflowIds.mergeRequestReview('gitlab', gitlabRepo, 5))).toBe(1);

    const elsewhere = JSON.stringify({
      ...payload,
      project: { ...payload.project, path_with_namespace: 'nobody/else' },
    });
    // The secret of one repository's hook does not open another: no candidate secret, the same 401.
    expect(await post('/webhooks/gitlab', elsewhere, headers(secret, randomUUID()))).toEqual(refused);
    expect(await post('/webhooks/gitlab', 'not json', headers(secret, randomUUID()))).toEqual(refused);
    const ping = await post('/webhooks/github', JSON.stringify({ zen: 'Keep it logically awesome.' }), {
      'x-github-event': 'ping',
      'x-github-delivery': randomUUID(),
    });
    expect(ping).toEqual({
      status: 401,
      body: { message: 'Unauthorized: X-Hub-Signature-256 is missing or does not match' },
    });
    expect(await countDeliveries(ctx.db, 'gitlab')).toBe(1);
  });

  it('Temporal unreachable: the delivery is accepted with its signals kept, and sent once the engine is back; a redelivery is then acknowledged', async () => {
    const unreachable = createTemporalClientProvider({
      address: '127.0.0.1:1',
      namespace: 'default',
      taskQueue: 'nowhere',
    });
    const down = createApp({ ...ctx.deps, temporal: unreachable });
    const payload = githubExample('pull_request', (p) => p.action === 'reopened');
    payload.repository.full_name = repo;
    payload.number = 3;
    payload.pull_request.number = 3;
    const workflowId = workflowIds.mergeRequestReview('github', repo, 3);
    started.push(workflowId);
    const deliveryId = randomUUID();
    const accepted = await deliverGitHub(poster(down), githubSecret, 'pull_request', payload, deliveryId);
    expect(accepted).toEqual({
      status: 202,
      body: {
        message:
          'Recorded; the workflow engine is unavailable, so 1 merge request review(s) will be signalled when it is back',
      },
    });
    const row = await ctx.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('delivery_id', '=', deliveryId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ processed_at: null, attempts: 1, last_error: expect.any(String) });
    expect(row.signals).toEqual([
      {
        projectId: ctx.tenant.projectId,
        ref: { provider: 'github', repository: repo, number: 3 },
        event: expect.objectContaining({ deliveryId }),
      },
    ]);

    // While the engine is still away, a resend changes nothing but the count of attempts.
    const quiet = { db: ctx.db, logger: silentLogger };
    expect(
      await resendPendingDeliveries({ ...quiet, temporal: unreachable }, { olderThanMs: 0 }).finally(() =>
        unreachable.close(),
      ),
    ).toBe(0);
    expect(
      await ctx.db
        .selectFrom('webhook_deliveries')
        .select(['processed_at', 'attempts'])
        .where('delivery_id', '=', deliveryId)
        .executeTakeFirstOrThrow(),
    ).toEqual({ processed_at: null, attempts: 2 });
    // A delivery still being handled (received moments ago) is left to its request.
    expect(await resendPendingDeliveries({ ...quiet, temporal: ctx.deps.temporal }, { olderThanMs: 60_000 })).toBe(0);
    // The engine is back: the stored signal is sent once, and the delivery is done.
    expect(await resendPendingDeliveries({ ...quiet, temporal: ctx.deps.temporal }, { olderThanMs: 0 })).toBe(1);
    expect(await signalsOf(workflowId)).toBe(1);
    const done = await ctx.db
      .selectFrom('webhook_deliveries')
      .select(['processed_at', 'last_error'])
      .where('delivery_id', '=', deliveryId)
      .executeTakeFirstOrThrow();
    expect(done).toEqual({ processed_at: expect.any(Date), last_error: null });
    expect(await resendPendingDeliveries({ ...quiet, temporal: ctx.deps.temporal }, { olderThanMs: 0 })).toBe(0);
    // GitHub's "Redeliver" button afterwards: acknowledged, not signalled again.
    expect((await deliverGitHub(poster(ctx.app), githubSecret, 'pull_request', payload, deliveryId)).status).toBe(200);
    expect(await signalsOf(workflowId)).toBe(1);
  }, 60_000);

  it('the webhook endpoints and the settings are in the OpenAPI document', async () => {
    const doc = (await ctx.call('GET', '/v1/openapi.json')).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/webhooks/github',
        '/webhooks/gitlab',
        '/v1/merge-request-review-settings',
        '/v1/merge-request-review-settings/{id}',
      ]),
    );
    expect(doc.paths['/webhooks/github'].post.security).toBeUndefined();
  });
});
