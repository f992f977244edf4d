import { randomBytes } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityDeps } from '../../activities/deps.js';
import { createMergeRequestActivities } from '../../activities/merge-requests.js';
import type { MergeRequestRef } from '../../src/domain/git.js';
import { GitClients } from '../../src/services/git-client-cache.js';
import type { ChangeReviewResult } from '../../workflows/change-review-contract.js';
import type { MergeRequestHead } from '../../workflows/merge-request-review-contract.js';
import { createApiContext, type ApiContext } from '../support/app-context.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { startFakeGitLab, type FakeGitLab } from '../support/fake-gitlab.js';
import { connectGitProviders, type Providers } from '../support/merge-request-stack.js';

// A worker that dies after GitHub or GitLab took a post but before the comment's id was stored: the activity's
// next attempt must find that post (by the hidden marker it carries) instead of posting it again. The crash is
// reproduced as the state it leaves: the post on the provider, no row in merge_request_comments.
describe('merge-request posts survive a crash between posting and remembering', () => {
  let ctx: ApiContext;
  let gh: FakeGitHub;
  let gl: FakeGitLab;
  let p: Providers;
  let activities: ReturnType<typeof createMergeRequestActivities>;
  const sha = randomBytes(20).toString('hex');

  beforeAll(async () => {
    [ctx, gh, gl] = await Promise.all([createApiContext('postgres'), startFakeGitHub(), startFakeGitLab()]);
    p = await connectGitProviders(ctx, gh, gl);
    p.github.openPullRequest(5, sha);
    p.gitlab.openMergeRequest({ project: p.gitlab.repo, iid: 6, sha, web: gl.url });
    activities = createMergeRequestActivities({
      db: ctx.db,
      gitClients: new GitClients(),
      appUrl: 'https://app.proctor.test',
      notify: { appUrl: 'https://app.proctor.test' },
    } as unknown as ActivityDeps);
  });
  afterAll(async () => {
    await Promise.all([ctx?.close(), gh?.close(), gl?.close()]);
  });

  const head = (ref: MergeRequestRef): MergeRequestHead => ({
    sha,
    url: `https://example.test/${ref.repository}/${ref.number}`,
    draft: false,
    sourceBranch: 'feature/cart',
    title: 'Cart badge',
  });
  const result: ChangeReviewResult = {
    verdict: 'Approved',
    summary: 'The cart badge works.',
    body: '### Approved\n\nThe cart badge works.',
    tests: [],
    url: 'https://app.proctor.test/chats/chat_x',
    source: 'github',
  };
  /** Runs an activity as Temporal would on the given attempt. */
  const attempt = <A extends unknown[]>(n: number, fn: (...args: A) => Promise<unknown>, ...args: A) =>
    new MockActivityEnvironment({ attempt: n }).run(fn, ...args);
  const forget = (key: string) => ctx.db.deleteFrom('merge_request_comments').where('key', '=', key).execute();

  it('GitHub: the start comment and the review are posted once', async () => {
    const ref: MergeRequestRef = { provider: 'github', repository: p.github.repo, number: 5 };
    const target = { projectId: ctx.tenant.projectId, ref };
    const announce = {
      ...target,
      head: head(ref),
      trigger: { deliveryId: 'd-1', event: 'opened' as const },
      chatUrl: result.url,
      key: `started:${ref.repository}:5:${sha}`,
    };
    await attempt(1, activities.announceMergeRequestReview, announce);
    expect(gh.comments(p.github.repo, 5)).toHaveLength(1);
    expect(gh.comments(p.github.repo, 5)[0]!.body).toContain(`<!-- proctor:${announce.key} -->`);
    await forget(announce.key);
    await attempt(2, activities.announceMergeRequestReview, announce);
    expect(gh.comments(p.github.repo, 5)).toHaveLength(1);
    // Found, the id is remembered again: a third attempt does not even look.
    const remembered = await ctx.db
      .selectFrom('merge_request_comments')
      .select('comment_id')
      .where('key', '=', announce.key)
      .executeTakeFirstOrThrow();
    expect(remembered.comment_id).toBe(String(gh.comments(p.github.repo, 5)[0]!.id));

    const verdict = { ...target, headSha: sha, result, key: `verdict:${ref.repository}:5:${sha}` };
    await attempt(1, activities.publishMergeRequestVerdict, verdict);
    await forget(verdict.key);
    await attempt(3, activities.publishMergeRequestVerdict, verdict);
    expect(gh.reviews(p.github.repo, 5)).toHaveLength(1);
    expect(gh.reviews(p.github.repo, 5)[0]!.body).toContain('The cart badge works.');
  });

  it('GitLab: the verdict note is posted once', async () => {
    const ref: MergeRequestRef = { provider: 'gitlab', repository: p.gitlab.repo, number: 6 };
    const verdict = {
      projectId: ctx.tenant.projectId,
      ref,
      headSha: sha,
      result: { ...result, source: 'gitlab' as const },
      key: `verdict:${ref.repository}:6:${sha}`,
    };
    await attempt(1, activities.publishMergeRequestVerdict, verdict);
    expect(gl.notes(p.gitlab.repo, 6)).toHaveLength(1);
    await forget(verdict.key);
    await attempt(2, activities.publishMergeRequestVerdict, verdict);
    expect(gl.notes(p.gitlab.repo, 6)).toHaveLength(1);
    // A different post (another key) on a retry is still posted: only its own marker counts.
    const failed = {
      projectId: ctx.tenant.projectId,
      ref,
      headSha: sha,
      key: `failed:${ref.repository}:6:${sha}`,
      outcome: 'failed' as const,
      reason: 'the preview never deployed',
    };
    await attempt(2, activities.endMergeRequestReview, failed);
    expect(gl.notes(p.gitlab.repo, 6)).toHaveLength(2);
  });
});
