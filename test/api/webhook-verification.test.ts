import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countDeliveries } from '../../src/db/queries/merge-requests.js';
import { createLogger } from '../../src/logger.js';
import { workflowIds } from '../../workflows/shared.js';
import { createApiContext, type ApiContext } from '../support/app-context.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { startFakeGitLab, type FakeGitLab } from '../support/fake-gitlab.js';
import { installOnFakeProviders } from '../support/merge-request-stack.js';
import { githubExample, gitlabMergeRequestEvent, type Payload, poster } from '../support/webhook-payloads.js';

// Issue 23: a webhook endpoint authenticates before it answers anything. Every probe a stranger can make (no
// signature, a wrong one, a repository nobody reviews, a ping, a body that is not JSON, a malformed header, another
// project's secret) gets one and the same 401, and leaves no delivery row, no merge-request row, no workflow and
// no log line with payload data. Real example payloads (@octokit/webhooks-examples), signed as the providers sign.

const githubRefused = {
  status: 401,
  body: { message: 'Unauthorized: X-Hub-Signature-256 is missing or does not match' },
};
const gitlabRefused = { status: 401, body: { message: 'Unauthorized: X-Gitlab-Token is missing or does not match' } };
const sign = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

describe('webhooks verify before anything else', () => {
  let ctx: ApiContext;
  let gh: FakeGitHub;
  let gl: FakeGitLab;
  let appId: number;
  const logLines: string[] = [];
  const secret = `whsec-${randomUUID()}`;
  const otherSecret = `whsec-other-${randomUUID()}`;
  const marker = `marker-${randomBytes(6).toString('hex')}`;
  const repo = `probe-${randomBytes(3).toString('hex')}/shop`;
  const unknownRepo = `nobody-${randomBytes(3).toString('hex')}/secret-project`;
  const gitlabRepo = `group-${randomBytes(3).toString('hex')}/shop`;

  beforeAll(async () => {
    const logger = createLogger('debug', {}, (line) => logLines.push(line));
    [ctx, gh, gl] = await Promise.all([createApiContext('postgres', { logger }), startFakeGitHub(), startFakeGitLab()]);
    const { app, integrations } = installOnFakeProviders(gh, gl, {
      githubRepo: repo,
      gitlabRepo,
      gitlabToken: 'glpat-probe',
      webhookSecret: secret,
    });
    appId = app.appId;
    const created = [
      await ctx.call('POST', '/v1/git-integrations', integrations.github),
      await ctx.call('POST', '/v1/git-integrations', integrations.gitlab),
      await ctx.call(
        'POST',
        '/v1/git-integrations',
        { provider: 'github', auth: 'token', token: 'ghp_other', webhookSecret: otherSecret },
        ctx.other.token,
      ),
      await ctx.call('PUT', '/v1/merge-request-review-settings', { provider: 'github', repository: repo }),
      await ctx.call('PUT', '/v1/merge-request-review-settings', { provider: 'gitlab', repository: gitlabRepo }),
    ];
    expect(created.map((r) => r.status)).toEqual([201, 201, 201, 200, 200]);
  });
  afterAll(async () => {
    await Promise.all([ctx.close(), gh.close(), gl.close()]);
  });

  const post = (path: string, body: string, headers: Record<string, string>) => poster(ctx.app)(path, body, headers);
  const pullRequest = (repository: string): Payload => {
    const p = githubExample('pull_request', (e) => e.action === 'opened');
    p.repository.full_name = repository;
    p.pull_request.title = marker;
    return p;
  };
  const recorded = async () => ({
    github: await countDeliveries(ctx.db, 'github'),
    gitlab: await countDeliveries(ctx.db, 'gitlab'),
    mergeRequests: (await ctx.db.selectFrom('merge_requests').select('number').execute()).length,
  });
  const nothingRecorded = async (before: Awaited<ReturnType<typeof recorded>>, workflowId: string) => {
    expect(await recorded()).toEqual(before);
    await expect((await ctx.deps.temporal.get()).workflow.getHandle(workflowId).describe()).rejects.toThrow(
      /not found/i,
    );
    expect(logLines.filter((l) => l.includes(marker) || l.includes(repo) || l.includes(unknownRepo))).toEqual([]);
  };

  it('GitHub: every unauthenticated probe is the same 401, ping included, and nothing is recorded or logged', async () => {
    const body = JSON.stringify(pullRequest(repo));
    const unknown = JSON.stringify(pullRequest(unknownRepo));
    const ping = JSON.stringify({
      ...githubExample('ping', (p) => p.repository !== undefined),
      zen: marker,
      repository: { full_name: repo },
    });
    const base = (event: string) => ({ 'x-github-event': event, 'x-github-delivery': randomUUID() });
    const workflowId = workflowIds.mergeRequestReview('github', repo, 2);
    const before = await recorded();
    const probes: Array<[string, string, Record<string, string>]> = [
      ['no signature', body, base('pull_request')],
      ['a wrong signature', body, { ...base('pull_request'), 'x-hub-signature-256': sign('guess', body) }],
      ['an empty signature', body, { ...base('pull_request'), 'x-hub-signature-256': '' }],
      ['a signature that is not hex', body, { ...base('pull_request'), 'x-hub-signature-256': 'sha256=zz' }],
      [
        'the right secret over other bytes',
        body,
        { ...base('pull_request'), 'x-hub-signature-256': sign(secret, body + ' ') },
      ],
      ["another project's secret", body, { ...base('pull_request'), 'x-hub-signature-256': sign(otherSecret, body) }],
      ['an unknown repository, unsigned', unknown, base('pull_request')],
      [
        'an unknown repository signed with a real secret',
        unknown,
        { ...base('pull_request'), 'x-hub-signature-256': sign(secret, unknown) },
      ],
      ['an unsigned ping', ping, base('ping')],
      ['a ping with a wrong signature', ping, { ...base('ping'), 'x-hub-signature-256': sign('guess', ping) }],
      [
        'a body that is not JSON, signed',
        `{${marker}`,
        { ...base('pull_request'), 'x-hub-signature-256': sign(secret, `{${marker}`) },
      ],
      ['no event header', body, { 'x-github-delivery': randomUUID() }],
      [
        'a delivery id of 10,000 characters',
        body,
        { 'x-github-event': 'pull_request', 'x-github-delivery': 'd'.repeat(10_000) },
      ],
      [
        'the App named in headers, wrong signature',
        body,
        {
          ...base('pull_request'),
          'x-github-hook-installation-target-type': 'integration',
          'x-github-hook-installation-target-id': String(appId),
          'x-hub-signature-256': sign('guess', body),
        },
      ],
    ];
    for (const [what, probeBody, headers] of probes)
      expect(await post('/webhooks/github', probeBody, headers), what).toEqual(githubRefused);
    await nothingRecorded(before, workflowId);

    // The same requests, signed with the secret: accepted, so the 401s above were about the signature alone.
    expect(
      await post('/webhooks/github', ping, { ...base('ping'), 'x-hub-signature-256': sign(secret, ping) }),
    ).toEqual({ status: 200, body: { message: 'pong' } });
    const appPing = JSON.stringify(
      githubExample('ping', (p) => p.hook?.app_id !== undefined && p.repository !== undefined),
    );
    const appPingAnswer = await post('/webhooks/github', appPing, {
      ...base('ping'),
      'x-hub-signature-256': sign(secret, appPing),
      'x-github-hook-installation-target-type': 'integration',
      'x-github-hook-installation-target-id': String(appId),
    });
    expect(appPingAnswer).toEqual({ status: 200, body: { message: 'pong' } });
    // Signed by the App for a repository no project reviews: acknowledged, nothing recorded, same answer whoever reviews it.
    expect(
      await post('/webhooks/github', unknown, {
        ...base('pull_request'),
        'x-hub-signature-256': sign(secret, unknown),
        'x-github-hook-installation-target-type': 'integration',
        'x-github-hook-installation-target-id': String(appId),
      }),
    ).toEqual({ status: 200, body: { message: 'Ignored: no merge-request review is configured for this repository' } });
    await nothingRecorded(before, workflowId);
    const accepted = await post('/webhooks/github', body, {
      ...base('pull_request'),
      'x-hub-signature-256': sign(secret, body),
    });
    expect(accepted).toEqual({ status: 202, body: { message: 'Signalled 1 merge request review(s)' } });
    expect(await countDeliveries(ctx.db, 'github')).toBe(before.github + 1);
    await (await ctx.deps.temporal.get()).workflow.getHandle(workflowId).terminate('test done');
  });

  it('GitLab: the token is checked before the payload is read; every probe is the same 401 and nothing is recorded', async () => {
    const token = gl.hooks(gitlabRepo)[0]!.token!;
    const mr = { project: gitlabRepo, iid: 7, sha: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7', web: gl.url };
    const event = gitlabMergeRequestEvent(mr, 'open');
    event.object_attributes.title = marker;
    const body = JSON.stringify(event);
    const unknown = JSON.stringify({ ...event, project: { ...event.project, path_with_namespace: unknownRepo } });
    const base = { 'x-gitlab-event': 'Merge Request Hook', 'idempotency-key': randomUUID() };
    const workflowId = workflowIds.mergeRequestReview('gitlab', gitlabRepo, 7);
    const before = await recorded();
    const probes: Array<[string, string, Record<string, string>]> = [
      ['no token', body, base],
      ['a wrong token', body, { ...base, 'x-gitlab-token': 'guess' }],
      ['the token with a byte more', body, { ...base, 'x-gitlab-token': `${token}0` }],
      ["another project's GitHub secret", body, { ...base, 'x-gitlab-token': otherSecret }],
      ['an unknown repository with a real token', unknown, { ...base, 'x-gitlab-token': token }],
      ['a body that is not JSON, with the token', `not json ${marker}`, { ...base, 'x-gitlab-token': token }],
      [
        'a payload naming no project, with the token',
        JSON.stringify({ object_kind: 'merge_request', marker }),
        { ...base, 'x-gitlab-token': token },
      ],
      ['no event header, wrong token', body, { 'x-gitlab-token': 'guess' }],
      ['an idempotency key of 10,000 characters, no token', body, { ...base, 'idempotency-key': 'k'.repeat(10_000) }],
    ];
    for (const [what, probeBody, headers] of probes)
      expect(await post('/webhooks/gitlab', probeBody, headers), what).toEqual(gitlabRefused);
    await nothingRecorded(before, workflowId);
    expect((await post('/webhooks/gitlab', body, { ...base, 'x-gitlab-token': token })).status).toBe(202);
    expect(await countDeliveries(ctx.db, 'gitlab')).toBe(before.gitlab + 1);
    await (await ctx.deps.temporal.get()).workflow.getHandle(workflowId).terminate('test done');
  });

  it('a body over 25 MiB is refused before it is read whole, and records nothing', async () => {
    const before = await countDeliveries(ctx.db, 'github');
    const huge = JSON.stringify({ repository: { full_name: repo }, pad: 'x'.repeat(25 * 1024 * 1024) });
    const res = await post('/webhooks/github', huge, {
      'x-github-event': 'pull_request',
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': sign(secret, huge),
    });
    expect(res).toEqual({ status: 413, body: { message: 'Webhook body larger than 25 MiB' } });
    expect(await countDeliveries(ctx.db, 'github')).toBe(before);
  });
});
