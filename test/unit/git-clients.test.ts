// The real GitHub and GitLab clients (@octokit/app, @gitbeaker/rest) against the local fake providers over HTTP.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { verify } from '@octokit/webhooks-methods';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GitHubClient } from '../../src/git/github.js';
import { GitLabClient } from '../../src/git/gitlab.js';
import type { MergeRequestRef } from '../../src/domain/git.js';
import { InvalidError, NotFoundError, UnavailableError } from '../../src/domain/errors.js';
import { startFakeGitHub, type FakeGitHub, type FakePullFile } from '../support/fake-github.js';
import type { FakeGitLab, FakeMrFile } from '../support/fake-gitlab.js';
import { listenOnFreePort } from '../support/net.js';
import { githubAppClient, rejection, startGitLabWithMergeRequest } from '../support/git-clients.js';

/** A local endpoint that records webhook deliveries, as Proctor's webhook routes would receive them. */
/** A changed file as fetchMergeRequest reports it: not binary unless `more` says so. */
const changedFile = (
  path: string,
  status: string,
  [additions, deletions]: [number, number],
  more: { binary?: boolean; patch?: string; previousPath?: string } = {},
) => ({ path, status, additions, deletions, binary: false, ...more });

const fileAt = (change: { files: { path: string }[] }, path: string) => change.files.find((f) => f.path === path);

async function webhookReceiver() {
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(202).end('accepted');
    });
  });
  const port = await listenOnFreePort(server);
  return { url: `http://127.0.0.1:${port}/webhooks`, received, close: () => new Promise((r) => server.close(r)) };
}

describe('GitHubClient against the fake GitHub', () => {
  let gh: FakeGitHub;
  let app: { appId: number; privateKey: string; slug: string };
  let installationId: number;
  const repository = 'acme/shop';
  const ref: MergeRequestRef = { provider: 'github', repository, number: 7 };
  // 130 text files (two pages of 100), one binary image, one rename.
  const files: FakePullFile[] = [
    ...Array.from({ length: 130 }, (_, i) => ({
      filename: `src/file-${i}.ts`,
      additions: 2,
      deletions: 1,
      patch: `@@ -1 +1,2 @@\n-old ${i}\n+new ${i}\n+more`,
    })),
    { filename: 'public/logo.png', status: 'added' as const },
    {
      filename: 'src/cart.ts',
      previousFilename: 'src/basket.ts',
      status: 'renamed' as const,
      additions: 1,
      deletions: 1,
      patch: '@@ -1 +1 @@\n-a\n+b',
    },
  ];

  beforeAll(async () => {
    gh = await startFakeGitHub();
    app = gh.addApp({ slug: 'proctor-review' });
    installationId = gh.addInstallation(app.appId, [repository]);
    gh.addPullRequest(repository, {
      number: 7,
      title: 'Faster checkout',
      body: 'Touches the cart',
      author: 'dev1',
      headRef: 'fast-checkout',
      draft: true,
      files,
    });
  });
  afterAll(() => gh.close());

  it('fetches a pull request with every changed file across pages, as the App installation', async () => {
    const client = githubAppClient(gh, app);
    const change = await client.fetchMergeRequest(ref);
    const pull = gh.pullRequest(repository, 7)!;
    expect(change).toMatchObject({
      ref,
      url: 'https://github.example/acme/shop/pull/7',
      title: 'Faster checkout',
      description: 'Touches the cart',
      author: 'dev1',
      sourceBranch: 'fast-checkout',
      targetBranch: 'main',
      headSha: pull.headSha,
      draft: true,
      state: 'open',
    });
    expect(change.files).toHaveLength(132);
    expect(change.files[0]).toEqual(
      changedFile('src/file-0.ts', 'modified', [2, 1], { patch: '@@ -1 +1,2 @@\n-old 0\n+new 0\n+more' }),
    );
    expect(fileAt(change, 'public/logo.png')).toEqual(
      changedFile('public/logo.png', 'added', [0, 0], { binary: true }),
    );
    expect(fileAt(change, 'src/cart.ts')).toMatchObject({
      previousPath: 'src/basket.ts',
      status: 'renamed',
      binary: false,
    });
    expect(gh.requests.filter((r) => r.route === 'pulls.listFiles').map((r) => r.query.get('page') ?? '1')).toEqual([
      '1',
      '2',
    ]);
  });

  it('mints the installation token once and reuses it for every later call; comments, reviews, statuses and reactions land as the app', async () => {
    const client = githubAppClient(gh, app);
    const before = gh.tokenExchanges(installationId);
    const lookupsBefore = gh.requests.filter((r) => r.route === 'apps.getRepoInstallation').length;

    const { id } = await client.createComment(ref, 'Waiting for the preview deployment');
    await client.updateComment(ref, id, 'Testing started');
    await client.addEyesReaction(ref, id);
    await client.addEyesReaction(ref);
    const sha = gh.pullRequest(repository, 7)!.headSha;
    await client.setCommitStatus(ref, sha, {
      state: 'pending',
      description: 'Proctor is testing',
      context: 'proctor/review',
      targetUrl: 'https://proctor.example/chat/1',
    });
    await client.setCommitStatus(ref, sha, {
      state: 'failure',
      description: 'x'.repeat(300),
      context: 'proctor/review',
    });
    for (const verdict of ['Approved', 'Changes Requested', 'Comment'] as const) {
      await client.postReview(ref, { verdict, body: `Verdict: ${verdict}`, headSha: sha });
    }

    expect(gh.tokenExchanges(installationId) - before).toBe(1);
    expect(gh.requests.filter((r) => r.route === 'apps.getRepoInstallation').length - lookupsBefore).toBe(1);
    const comments = gh.comments(repository, 7).filter((c) => c.id === Number(id));
    expect(comments).toEqual([
      expect.objectContaining({ body: 'Testing started', author: 'proctor-review[bot]', updatedCount: 1 }),
    ]);
    expect(gh.reactions(repository)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ subject: 'comment', id: Number(id), content: 'eyes', author: 'proctor-review[bot]' }),
        expect.objectContaining({ subject: 'issue', id: 7, content: 'eyes' }),
      ]),
    );
    const statuses = gh.statuses(repository, sha);
    expect(statuses.map((s) => [s.state, s.context, s.targetUrl])).toEqual([
      ['pending', 'proctor/review', 'https://proctor.example/chat/1'],
      ['failure', 'proctor/review', null],
    ]);
    expect(statuses[1]!.description).toHaveLength(140);
    expect(gh.reviews(repository, 7).map((r) => [r.event, r.commitId, r.author])).toEqual([
      ['APPROVE', sha, 'proctor-review[bot]'],
      ['REQUEST_CHANGES', sha, 'proctor-review[bot]'],
      ['COMMENT', sha, 'proctor-review[bot]'],
    ]);
  });

  it('mints one token for concurrent first calls', async () => {
    const other = gh.addApp({ slug: 'busy' });
    const otherInstallation = gh.addInstallation(other.appId, ['acme/busy']);
    gh.addPullRequest('acme/busy', { number: 1 });
    const client = githubAppClient(gh, other);
    const busyRef: MergeRequestRef = { provider: 'github', repository: 'acme/busy', number: 1 };
    const lookupsBefore = gh.requests.filter((r) => r.route === 'apps.getRepoInstallation').length;
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map((body) => client.createComment(busyRef, body)));
    expect(gh.tokenExchanges(otherInstallation)).toBe(1);
    expect(gh.requests.filter((r) => r.route === 'apps.getRepoInstallation').length - lookupsBefore).toBe(1);
    expect(
      gh
        .comments('acme/busy', 1)
        .map((c) => c.body)
        .sort(),
    ).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('follows an App that was uninstalled and installed again (new installation id, old tokens revoked)', async () => {
    const other = gh.addApp({ slug: 'reinstalled' });
    const firstInstallation = gh.addInstallation(other.appId, ['acme/moved']);
    gh.addPullRequest('acme/moved', { number: 2 });
    const client = githubAppClient(gh, other);
    const movedRef: MergeRequestRef = { provider: 'github', repository: 'acme/moved', number: 2 };
    // @octokit/auth-app retries a 401 on a token younger than 5 s for seconds (GitHub's replication lag); an
    // installation is not replaced that fast outside a test, so the clock moves on instead.
    vi.useFakeTimers({ toFake: ['Date'] });
    const later = () => vi.setSystemTime(Date.now() + 10_000);
    try {
      await client.createComment(movedRef, 'before');
      gh.removeInstallation(firstInstallation);
      const secondInstallation = gh.addInstallation(other.appId, ['acme/moved']);
      later();
      await client.createComment(movedRef, 'after');
      expect(gh.comments('acme/moved', 2).map((c) => c.body)).toEqual(['before', 'after']);
      expect(gh.tokenExchanges(secondInstallation)).toBe(1);

      // Uninstalled for good: the refusal stands, as a NotFoundError naming the installation.
      gh.removeInstallation(secondInstallation);
      later();
      const gone = await rejection(client.createComment(movedRef, 'never'));
      expect(gone).toBeInstanceOf(NotFoundError);
      expect(gone.message).toContain('GitHub App installation on acme/moved');
    } finally {
      vi.useRealTimers();
    }
  });

  it('works with a token against a GitHub Enterprise base URL', async () => {
    gh.addToken('ghp_enterprise_test', [repository], 'ci-bot');
    const client = new GitHubClient({
      auth: { kind: 'token', token: 'ghp_enterprise_test' },
      baseUrl: gh.enterpriseUrl,
    });
    const change = await client.fetchMergeRequest(ref);
    await client.createComment(ref, 'from a token');
    expect(change.files).toHaveLength(132);
    expect(gh.comments(repository, 7).at(-1)).toMatchObject({ body: 'from a token', author: 'ci-bot' });
    // A token of the pull request's author cannot approve it: the verdict lands as a comment review.
    gh.addToken('ghp_author', [repository], 'dev1');
    const asAuthor = new GitHubClient({ auth: { kind: 'token', token: 'ghp_author' }, baseUrl: gh.enterpriseUrl });
    const sha = gh.pullRequest(repository, 7)!.headSha;
    await asAuthor.postReview(ref, { verdict: 'Approved', body: '**Approved**: checkout works', headSha: sha });
    expect(gh.reviews(repository, 7).at(-1)).toMatchObject({
      event: 'COMMENT',
      body: '**Approved**: checkout works',
      author: 'dev1',
    });
    const tokenCalls = gh.requests.filter((r) => r.headers.authorization === 'token ghp_enterprise_test');
    expect(tokenCalls.length).toBeGreaterThanOrEqual(3);
    expect(tokenCalls.every((r) => r.mount === '/api/v3')).toBe(true);
  });

  it('maps a missing pull request to NotFoundError, refused credentials to InvalidError and an outage to a retryable UnavailableError', async () => {
    const client = githubAppClient(gh, app);
    const missing = await rejection(client.fetchMergeRequest({ ...ref, number: 999 }));
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing.message).toContain('Pull request acme/shop#999 not found');

    const notInstalled = await rejection(client.fetchMergeRequest({ ...ref, repository: 'acme/elsewhere' }));
    expect(notInstalled).toBeInstanceOf(NotFoundError);
    expect(notInstalled.message).toContain('GitHub App installation on acme/elsewhere');

    const wrongKey = gh.addApp();
    const impostor = githubAppClient(gh, { appId: app.appId, privateKey: wrongKey.privateKey });
    const refused = await rejection(impostor.fetchMergeRequest(ref));
    expect(refused).toBeInstanceOf(InvalidError);
    expect(refused.message).toMatch(/GitHub refused the integration's credentials \(401\)/);

    const badToken = new GitHubClient({ auth: { kind: 'token', token: 'ghp_revoked' }, baseUrl: gh.url });
    expect(await rejection(badToken.createComment(ref, 'x'))).toBeInstanceOf(InvalidError);

    gh.failNext('issues.createComment', 1, 503);
    const outage = await rejection(client.createComment(ref, 'during an outage'));
    expect(outage).toBeInstanceOf(UnavailableError);
    expect(outage.message).toContain('GitHub answered 503');
    // The retry an activity would make goes through.
    await client.createComment(ref, 'after the outage');
    expect(gh.comments(repository, 7).map((c) => c.body)).toContain('after the outage');
    expect(gh.comments(repository, 7).map((c) => c.body)).not.toContain('during an outage');

    const unreachable = new GitHubClient({ auth: { kind: 'token', token: 'x' }, baseUrl: 'http://127.0.0.1:9' });
    expect(await rejection(unreachable.createComment(ref, 'x'))).toBeInstanceOf(UnavailableError);
  });
  it('delivers webhooks signed as GitHub signs them, repeating a delivery id on request', async () => {
    const receiver = await webhookReceiver();
    try {
      const payload = { action: 'opened', number: 7, pull_request: { head: { sha: 'abc' } } };
      const first = await gh.deliverWebhook(receiver.url, { event: 'pull_request', payload, secret: 'hook-secret' });
      const again = await gh.deliverWebhook(receiver.url, {
        event: 'pull_request',
        payload,
        secret: 'hook-secret',
        deliveryId: first.deliveryId,
      });
      expect([first.status, again.status]).toEqual([202, 202]);
      const [a, b] = receiver.received;
      expect(a!.headers).toMatchObject({ 'x-github-event': 'pull_request', 'x-github-delivery': first.deliveryId });
      expect(b!.headers['x-github-delivery']).toBe(first.deliveryId);
      expect(JSON.parse(a!.body)).toEqual(payload);
      expect(await verify('hook-secret', a!.body, String(a!.headers['x-hub-signature-256']))).toBe(true);
      expect(await verify('another-secret', a!.body, String(a!.headers['x-hub-signature-256']))).toBe(false);
    } finally {
      await receiver.close();
    }
  });
});

describe('GitLabClient against the fake GitLab', () => {
  let gl: FakeGitLab;
  let projectId: number;
  const repository = 'acme/web/shop';
  const ref: MergeRequestRef = { provider: 'gitlab', repository, number: 3 };
  const files: FakeMrFile[] = [
    ...Array.from({ length: 120 }, (_, i) => ({
      newPath: `app/page-${i}.tsx`,
      diff: `@@ -1,2 +1,2 @@\n-old ${i}\n+new ${i}\n+added ${i}\n context`,
    })),
    { newPath: 'public/hero.jpg', newFile: true },
    { newPath: 'app/basket.tsx', oldPath: 'app/cart.tsx', renamedFile: true, diff: '' },
    { newPath: 'app/legacy.tsx', deletedFile: true, diff: '@@ -1,2 +0,0 @@\n-gone\n-too' },
  ];

  beforeAll(async () => {
    ({ gl, projectId } = await startGitLabWithMergeRequest(repository, {
      iid: 3,
      title: 'Checkout redesign',
      description: 'New basket',
      author: 'alice',
      sourceBranch: 'redesign',
      draft: true,
      files,
    }));
  });
  afterAll(() => gl.close());

  const client = () => new GitLabClient({ token: 'glpat-project', baseUrl: gl.url });

  it('fetches a merge request of a nested-group project with every diff across pages', async () => {
    const change = await client().fetchMergeRequest(ref);
    expect(change).toMatchObject({
      ref,
      url: 'https://gitlab.example/acme/web/shop/-/merge_requests/3',
      title: 'Draft: Checkout redesign',
      description: 'New basket',
      author: 'alice',
      sourceBranch: 'redesign',
      targetBranch: 'main',
      headSha: gl.mergeRequest(repository, 3)!.sha,
      draft: true,
      state: 'open',
    });
    expect(change.files).toHaveLength(123);
    expect(change.files[5]).toEqual(
      changedFile('app/page-5.tsx', 'modified', [2, 1], {
        patch: '@@ -1,2 +1,2 @@\n-old 5\n+new 5\n+added 5\n context',
      }),
    );
    expect(fileAt(change, 'public/hero.jpg')).toEqual(
      changedFile('public/hero.jpg', 'added', [0, 0], { binary: true }),
    );
    expect(fileAt(change, 'app/basket.tsx')).toEqual(
      changedFile('app/basket.tsx', 'renamed', [0, 0], { previousPath: 'app/cart.tsx' }),
    );
    expect(fileAt(change, 'app/legacy.tsx')).toMatchObject({ status: 'removed', deletions: 2 });
    const diffCalls = gl.requests.filter((r) => r.route === 'mergeRequests.diffs');
    expect(diffCalls).toHaveLength(2);
    // Addressed by URL-encoded path, under /api/v4, with the token header.
    expect(gl.requests.find((r) => r.route === 'mergeRequests.show')).toMatchObject({
      mount: '/api/v4',
      path: '/projects/acme%2Fweb%2Fshop/merge_requests/3',
    });
    expect(diffCalls[0]!.headers['private-token']).toBe('glpat-project');
  });

  it('reads the changes of an instance without the paged diffs endpoint (GitLab before 15.7)', async () => {
    gl.failNext('mergeRequests.diffs', 1, 404);
    const change = await client().fetchMergeRequest(ref);
    expect(change.files).toHaveLength(123);
    expect(change.files.find((f) => f.path === 'public/hero.jpg')).toMatchObject({ binary: true });
    expect(gl.requests.at(-1)).toMatchObject({ route: 'mergeRequests.changes', status: 200 });
  });

  it('addresses a project by its numeric id too', async () => {
    const change = await client().fetchMergeRequest({ ...ref, repository: String(projectId) });
    expect(change.title).toBe('Draft: Checkout redesign');
  });

  it('posts and edits notes, posts the review as a note, sets commit statuses and awards 👀 (repeats are harmless)', async () => {
    const c = client();
    const { id } = await c.createComment(ref, 'Waiting for the review app');
    await c.updateComment(ref, id, 'Testing started');
    const review = await c.postReview(ref, {
      verdict: 'Changes Requested',
      body: '## Changes Requested\n\nCheckout fails',
      headSha: 'abc',
    });
    const sha = gl.mergeRequest(repository, 3)!.sha;
    await c.setCommitStatus(ref, sha, {
      state: 'pending',
      description: 'Testing',
      context: 'proctor',
      targetUrl: 'https://proctor.example/chat/2',
    });
    await c.setCommitStatus(ref, sha, { state: 'pending', description: 'Testing', context: 'proctor' });
    await c.setCommitStatus(ref, sha, { state: 'failure', description: 'Checkout fails', context: 'proctor' });
    await c.addEyesReaction(ref, id);
    await c.addEyesReaction(ref, id);
    await c.addEyesReaction(ref);

    const notes = gl.notes(repository, 3);
    expect(notes.map((n) => [n.body, n.updatedCount])).toEqual([
      ['Testing started', 1],
      ['## Changes Requested\n\nCheckout fails', 0],
    ]);
    expect(review.id).toBe(String(notes[1]!.id));
    expect(gl.statuses(repository, sha).map((s) => [s.state, s.name, s.targetUrl])).toEqual([
      ['pending', 'proctor', 'https://proctor.example/chat/2'],
      ['failed', 'proctor', null],
    ]);
    expect(gl.awardEmoji(repository, 3).map((a) => [a.name, a.noteId])).toEqual([
      ['eyes', Number(id)],
      ['eyes', undefined],
    ]);
  });

  it('creates the project webhook once and refreshes it in place', async () => {
    const c = client();
    const first = await c.ensureProjectWebhook(repository, {
      url: 'http://127.0.0.1:9/webhooks/gitlab',
      secret: 'first-secret',
      events: ['merge_requests', 'notes', 'deployments'],
    });
    const again = await c.ensureProjectWebhook(repository, {
      url: 'http://127.0.0.1:9/webhooks/gitlab',
      secret: 'second-secret',
      events: ['merge_requests', 'notes', 'deployments', 'pipelines'],
    });
    expect(first.created).toBe(true);
    expect(again).toEqual({ id: first.id, created: false });
    const hooks = gl.hooks(repository);
    expect(hooks).toHaveLength(1);
    expect(hooks[0]).toMatchObject({
      url: 'http://127.0.0.1:9/webhooks/gitlab',
      token: 'second-secret',
      enableSslVerification: true,
      events: expect.objectContaining({
        merge_requests_events: true,
        note_events: true,
        deployment_events: true,
        pipeline_events: true,
        push_events: false,
      }),
    });
    const receiver = await webhookReceiver();
    try {
      await c.ensureProjectWebhook(repository, {
        url: receiver.url,
        secret: 'receiver-secret',
        events: ['merge_requests', 'notes'],
      });
      const delivered = await gl.deliverWebhook(repository, {
        event: 'merge_requests',
        payload: { object_kind: 'merge_request' },
      });
      // The first hook subscribes too; only the receiver's answer matters here.
      const mine = delivered.filter((d) => d.status === 202);
      expect(mine).toHaveLength(1);
      expect(receiver.received[0]!.headers).toMatchObject({
        'x-gitlab-event': 'Merge Request Hook',
        'x-gitlab-token': 'receiver-secret',
        'x-gitlab-event-uuid': mine[0]!.uuid,
        'idempotency-key': mine[0]!.uuid,
      });
      // A hook that does not subscribe to an event gets none of it.
      expect(await gl.deliverWebhook(repository, { event: 'push', payload: { object_kind: 'push' } })).toEqual([]);
    } finally {
      await receiver.close();
    }
    expect(gl.hooks(repository)).toHaveLength(2);
  });

  it('maps 404 to NotFoundError, a bad token to InvalidError and 503 or no answer to a retryable UnavailableError', async () => {
    const missing = await rejection(client().fetchMergeRequest({ ...ref, number: 404 }));
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing.message).toContain('Merge request acme/web/shop!404 not found');
    expect(await rejection(client().fetchMergeRequest({ ...ref, repository: 'acme/other' }))).toBeInstanceOf(
      NotFoundError,
    );

    const badToken = new GitLabClient({ token: 'glpat-wrong', baseUrl: gl.url });
    const refused = await rejection(badToken.createComment(ref, 'x'));
    expect(refused).toBeInstanceOf(InvalidError);
    expect(refused.message).toContain("GitLab refused the integration's credentials (401)");

    gl.failNext('notes.create', 2, 503);
    const c = client();
    expect(await rejection(c.createComment(ref, 'lost?'))).toBeInstanceOf(UnavailableError);
    expect(await rejection(c.createComment(ref, 'lost?'))).toBeInstanceOf(UnavailableError);
    await c.createComment(ref, 'delivered after the outage');
    expect(gl.notes(repository, 3).map((n) => n.body)).toContain('delivered after the outage');
    expect(gl.notes(repository, 3).map((n) => n.body)).not.toContain('lost?');

    const unreachable = new GitLabClient({ token: 'x', baseUrl: 'http://127.0.0.1:9' });
    expect(await rejection(unreachable.createComment(ref, 'x'))).toBeInstanceOf(UnavailableError);
  });
});
