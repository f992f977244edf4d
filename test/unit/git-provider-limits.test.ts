// Two limits the provider libraries set on their own and Proctor overrides, against the fake providers over HTTP:
// gitbeaker's ten in-call retries of 429/502, and @octokit/auth-app's 59-minute reuse of installation tokens.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitLabClient } from '../../src/git/gitlab.js';
import { InstallationTokenCache } from '../../src/git/installation-token-cache.js';
import type { MergeRequestRef } from '../../src/domain/git.js';
import { UnavailableError } from '../../src/domain/errors.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import type { FakeGitLab } from '../support/fake-gitlab.js';
import { githubAppClient, gitlabToken, rejection, startGitLabWithMergeRequest } from '../support/git-clients.js';

describe('GitLab: one attempt per call, Temporal retries', () => {
  let gl: FakeGitLab;
  const repository = 'acme/web/shop';
  const ref: MergeRequestRef = { provider: 'gitlab', repository, number: 3 };

  beforeAll(async () => {
    ({ gl } = await startGitLabWithMergeRequest(repository, {
      iid: 3,
      title: 'Checkout',
      description: '',
      author: 'alice',
      sourceBranch: 'checkout',
      files: [],
    }));
  });
  afterAll(() => gl.close());
  const gitlabClient = () => new GitLabClient({ token: gitlabToken, baseUrl: gl.url });

  for (const status of [502, 429]) {
    it(`answers a ${status} at once as a retryable UnavailableError after one request`, async () => {
      const client = gitlabClient();
      const before = gl.requests.filter((r) => r.route === 'notes.create').length;
      gl.failNext('notes.create', 1, status);
      const started = Date.now();
      const err = await rejection(client.createComment(ref, 'during the outage'));
      expect(err).toBeInstanceOf(UnavailableError);
      expect(err.message).toContain(`answered ${status}`);
      // gitbeaker alone would have asked 10 times over minutes (0.25 s doubling) before giving up.
      expect(Date.now() - started).toBeLessThan(2000);
      expect(gl.requests.filter((r) => r.route === 'notes.create').length - before).toBe(1);
    });
  }

  it('still parses answers (JSON bodies, headers of paged lists) with the single-attempt requester', async () => {
    const client = gitlabClient();
    const { id } = await client.createComment(ref, 'after the outage');
    expect(id).toMatch(/^\d+$/);
    expect((await client.fetchMergeRequest(ref)).title).toBe('Checkout');
  });
});

describe('GitHub App installation tokens live as long as GitHub says', () => {
  let gh: FakeGitHub;
  const repository = 'acme/shop';
  const ref: MergeRequestRef = { provider: 'github', repository, number: 7 };

  beforeAll(async () => {
    gh = await startFakeGitHub();
  });
  afterAll(() => gh.close());

  it('mints a new token once the short expiry GitHub gave the last one is near, and reuses a long-lived one', async () => {
    const app = gh.addApp();
    const installationId = gh.addInstallation(app.appId, [repository]);
    gh.addPullRequest(repository, { number: 7, title: 'Faster checkout', files: [] });
    const client = githubAppClient(gh, app);

    gh.setInstallationTokenTtl(4_000);
    await client.fetchMergeRequest(ref);
    await client.fetchMergeRequest(ref);
    expect(gh.tokenExchanges(installationId)).toBe(1);
    // Past half of a 4 s token's life: auth-app alone would keep it for 59 minutes and send it expired.
    await new Promise((r) => setTimeout(r, 2_500));
    gh.setInstallationTokenTtl(3_600_000);
    expect((await client.fetchMergeRequest(ref)).title).toBe('Faster checkout');
    expect(gh.tokenExchanges(installationId)).toBe(2);
    await client.fetchMergeRequest(ref);
    expect(gh.tokenExchanges(installationId)).toBe(2);
  });
});

describe('InstallationTokenCache', () => {
  const entry = (createdAt: number, expiresAt: number) =>
    `ghs_x|${new Date(createdAt).toISOString()}|${new Date(expiresAt).toISOString()}|selected|pull_requests!|`;

  it('keeps an hour-long token until a minute before it expires, and drops an unreadable entry', () => {
    let now = 0;
    const cache = new InstallationTokenCache(() => now);
    cache.set('1', entry(0, 3_600_000));
    now = 3_539_000;
    expect(cache.get('1')).toBeDefined();
    now = 3_540_000;
    expect(cache.get('1')).toBeUndefined();
    cache.set('2', 'ghs_y|garbage|garbage');
    expect(cache.get('2')).toBeUndefined();
  });
});
