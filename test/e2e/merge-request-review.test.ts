// Merge-request review on the real stack: webhooks into the API, the mergeRequestReview workflow on Temporal, the
// real changeReview child (PR mode: the change is fetched from the fake provider), comments, reviews and statuses
// posted to local fake GitHub and GitLab servers. GitHub payloads are real examples signed with the App's secret;
// GitLab's are shaped as GitLab documents them and carry the hook's token.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowIds } from '../../workflows/shared.js';
import { mergeRequestReviewStateQuery } from '../../workflows/merge-request-review-contract.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { startFakeGitLab, type FakeGitLab } from '../support/fake-gitlab.js';
import { waitFor } from '../support/net.js';
import { nothingToReview } from '../support/review-script.js';
import { startScriptedLlm, type ScriptedLlm } from '../support/scripted-llm.js';
import {
  gitlabDeploymentEvent,
  gitlabMergeRequestEvent,
  gitlabNoteEvent,
  poster,
  type GitLabMr,
} from '../support/webhook-payloads.js';
import { startStack, type Stack } from '../support/worker-context.js';
import { connectGitProviders, type Providers } from '../support/merge-request-stack.js';
import { insertDiscoveryRows } from '../support/discovery-rows.js';
import { applicationIdOf, insertRecordedTestCase } from '../support/recorded.js';

/**
 * Closes the pull request (its workflow ends) and, with `RECORD_HISTORIES=1`, keeps the workflow's history for
 * test/workflows/replay.test.ts.
 */
async function closeAndRecord(stack: Stack, p: Providers, n: number, sha: string, file: string): Promise<void> {
  expect((await p.github.deliverPullRequest(poster(stack.app), 'closed', n, sha)).status).toBe(202);
  const handle = (await stack.temporal.get()).workflow.getHandle(
    workflowIds.mergeRequestReview('github', p.github.repo, n),
  );
  await handle.result();
  if (process.env.RECORD_HISTORIES)
    writeFileSync(join('test/workflows/histories', file), historyToJSON(await handle.fetchHistory()));
}

describe('merge-request review end to end', () => {
  let llm: ScriptedLlm;
  let stack: Stack;
  let gh: FakeGitHub;
  let gl: FakeGitLab;
  let p: Providers;

  beforeAll(async () => {
    [llm, gh, gl] = await Promise.all([startScriptedLlm(), startFakeGitHub(), startFakeGitLab()]);
    stack = await startStack({ llm });
    p = await connectGitProviders(stack, gh, gl);
    // The model finds no existing test affected and no new one needed: the review runs nothing and says so.
    llm.enqueue(...nothingToReview(40));
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await Promise.all([llm?.stop(), gh?.close(), gl?.close()]);
  });

  const post = () => poster(stack.app);

  it('GitHub: opened, not deployed → one waiting comment; the deployment of the head → start comment, pending status, 👀, one review and the final status', async () => {
    const n = 11;
    const sha = 'a'.repeat(40);
    p.github.openPullRequest(n, sha);
    expect((await p.github.deliverPullRequest(post(), 'opened', n, sha)).status).toBe(202);
    await waitFor(async () => gh.comments(p.github.repo, n).length === 1, 60_000, 'the waiting comment');
    expect(gh.comments(p.github.repo, n)[0]!.body).toContain('waiting for preview');

    const deployed = await p.github.deliverDeploymentStatus(post(), sha, 'preview', 'https://pr-11.preview.test');
    expect(deployed.status).toBe(202);
    await waitFor(async () => gh.reviews(p.github.repo, n).length === 1, 90_000, 'the review on GitHub');
    // The final commit status follows the review in the same activity: a moment later, not at once.
    await waitFor(async () => gh.statuses(p.github.repo, sha).length === 2, 30_000, 'the final commit status');

    const comments = gh.comments(p.github.repo, n);
    expect(comments).toHaveLength(2);
    // The waiting comment was edited in place to point at the review; the start comment names what was tested.
    expect(comments[0]!.body).toContain('started reviewing commit');
    expect(comments[0]!.updatedCount).toBe(1);
    expect(comments[1]!.body).toMatch(
      /is testing this merge request: \[follow the review\]\(https:\/\/app\.proctor\.test\/chats\/chat_/,
    );
    expect(comments[1]!.body).toContain(
      `| Shop | #${n} | \`feature/cart\` | \`${sha.slice(0, 12)}\` | deployment ready |`,
    );
    expect(comments.every((c) => c.author === 'proctor[bot]')).toBe(true);
    const [review] = gh.reviews(p.github.repo, n);
    expect(review).toMatchObject({ event: 'COMMENT', commitId: sha, author: 'proctor[bot]' });
    expect(review!.body).toContain('Verdict: Comment');
    expect(gh.statuses(p.github.repo, sha).map((s) => [s.state, s.context])).toEqual([
      ['pending', 'proctor/review'],
      ['success', 'proctor/review'],
    ]);
    expect(
      gh
        .reactions(p.github.repo)
        .filter((r) => r.subject === 'issue' && r.id === n)
        .map((r) => r.content),
    ).toEqual(['eyes']);

    // The review ran against the deployment, for the mapped application.
    const recorded = await stack.db
      .selectFrom('change_reviews')
      .select(['application_overrides', 'source', 'pr_url'])
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    expect(recorded).toMatchObject({
      source: 'github',
      pr_url: `https://github.com/${p.github.repo}/pull/${n}`,
      application_overrides: [
        { applicationShortId: p.appShortId, environment: { url: 'https://pr-11.preview.test', name: 'preview' } },
      ],
    });
    // What an operator sees in the Temporal UI once the review has ended.
    const handle = (await stack.temporal.get()).workflow.getHandle(
      workflowIds.mergeRequestReview('github', p.github.repo, n),
    );
    await waitFor(
      async () => (await handle.query(mergeRequestReviewStateQuery)).state === 'reviewed',
      30_000,
      'the workflow to say reviewed',
    );
    expect(await handle.query(mergeRequestReviewStateQuery)).toMatchObject({
      state: 'reviewed',
      headSha: sha,
      lastVerdict: 'Comment',
      reviews: 1,
      waitingFor: [],
    });
    await closeAndRecord(stack, p, n, sha, 'mergeRequestReview.json');
  }, 180_000);

  it('GitLab: not ready → one waiting note; a mention with a URL → the review tests that URL; one verdict note', async () => {
    const mr: GitLabMr = { project: p.gitlab.repo, iid: 21, sha: 'b'.repeat(40), web: gl.url };
    p.gitlab.openMergeRequest(mr);
    expect((await p.gitlab.deliver(post(), 'Merge Request Hook', gitlabMergeRequestEvent(mr, 'open'))).status).toBe(
      202,
    );
    await waitFor(async () => gl.notes(mr.project, mr.iid).length === 1, 60_000, 'the waiting note');
    // A deployment of an unmapped environment does not make it ready.
    expect(
      (
        await p.gitlab.deliver(
          post(),
          'Deployment Hook',
          gitlabDeploymentEvent(mr, 'storybook', 'https://sb.preview.test'),
        )
      ).status,
    ).toBe(202);

    // GitLab is down for the next two notes: the start comment comes late, once.
    gl.failNext('notes.create', 2);
    const mention = gitlabNoteEvent(
      mr,
      'Hey @Proctor, the preview is up at https://mr-21.manual.test/shop please check',
      5001,
    );
    expect((await p.gitlab.deliver(post(), 'Note Hook', mention)).status).toBe(202);
    await waitFor(async () => gl.notes(mr.project, mr.iid).length === 3, 90_000, 'the start and verdict notes');

    const notes = gl.notes(mr.project, mr.iid).map((n) => n.body);
    expect(notes[0]).toContain('started reviewing commit');
    expect(notes[1]).toContain('| manual trigger (comment) |');
    expect(notes[1]).toContain('Deployment under test: https://mr-21.manual.test/shop');
    expect(notes[2]).toContain('Verdict: Comment');
    expect(gl.requests.filter((r) => r.route === 'notes.create' && r.status === 503)).toHaveLength(2);
    const recorded = await stack.db
      .selectFrom('change_reviews')
      .select(['application_overrides', 'source'])
      .where('source', '=', 'gitlab')
      .executeTakeFirstOrThrow();
    expect(recorded.application_overrides).toEqual([
      { applicationShortId: p.appShortId, environment: { url: 'https://mr-21.manual.test/shop', name: 'preview' } },
    ]);
  }, 180_000);

  it('GitLab: a draft is skipped; marked ready with its deployment → reviewed once', async () => {
    const mr: GitLabMr = { project: p.gitlab.repo, iid: 22, sha: 'c'.repeat(40), web: gl.url, draft: true };
    p.gitlab.openMergeRequest(mr);
    await p.gitlab.deliver(
      post(),
      'Deployment Hook',
      gitlabDeploymentEvent(mr, 'preview', 'https://mr-22.preview.test'),
    );
    expect((await p.gitlab.deliver(post(), 'Merge Request Hook', gitlabMergeRequestEvent(mr, 'open'))).status).toBe(
      202,
    );
    const handle = (await stack.temporal.get()).workflow.getHandle(
      workflowIds.mergeRequestReview('gitlab', mr.project, mr.iid),
    );
    await waitFor(
      async () => (await handle.query(mergeRequestReviewStateQuery).catch(() => null))?.state === 'skipped-draft',
      60_000,
      'the draft to be skipped',
    );
    expect(gl.notes(mr.project, mr.iid)).toHaveLength(0);

    const ready = { ...mr, draft: false };
    await p.gitlab.deliver(
      post(),
      'Merge Request Hook',
      gitlabMergeRequestEvent(ready, 'update', { changes: { draft: { previous: true, current: false } } }),
    );
    await waitFor(async () => gl.notes(mr.project, mr.iid).length === 2, 90_000, 'the start and verdict notes');
    expect(gl.notes(mr.project, mr.iid)[0]!.body).toContain('| marked ready for review |');
    expect(gl.notes(mr.project, mr.iid)[1]!.body).toContain('Verdict: Comment');
  }, 180_000);

  it('GitHub: a push mid-review cancels it; one review, for the new head', async () => {
    const n = 12;
    const first = 'd'.repeat(40);
    const second = 'e'.repeat(40);
    p.github.openPullRequest(n, first);
    // The first review cannot read the change for a while (the provider answers 503; the activity retries).
    gh.failNext('pulls.get', 4);
    await p.github.deliverDeploymentStatus(post(), first, 'preview', 'https://first.preview.test');
    await p.github.deliverPullRequest(post(), 'opened', n, first);
    await waitFor(
      async () => gh.comments(p.github.repo, n).some((c) => c.body.includes('is testing')),
      60_000,
      'the first start comment',
    );

    gh.pullRequest(p.github.repo, n)!.headSha = second;
    await p.github.deliverPullRequest(post(), 'synchronize', n, second);
    await waitFor(
      async () => gh.statuses(p.github.repo, first).some((s) => s.state === 'error'),
      60_000,
      'the first review to be superseded',
    );
    expect(gh.statuses(p.github.repo, first).at(-1)).toMatchObject({
      state: 'error',
      description: 'Superseded by a newer commit',
    });
    await p.github.deliverDeploymentStatus(post(), second, 'preview', 'https://second.preview.test');
    await waitFor(async () => gh.reviews(p.github.repo, n).length === 1, 120_000, 'the review of the new head');

    expect(gh.reviews(p.github.repo, n)[0]!.commitId).toBe(second);
    const cancelled = await stack.db
      .selectFrom('change_reviews')
      .select('state')
      .where('pr_url', '=', `https://github.com/${p.github.repo}/pull/${n}`)
      .orderBy('created_at')
      .execute();
    expect(cancelled.map((r) => r.state)).toEqual(['CANCELLED', 'COMPLETED']);
    await closeAndRecord(stack, p, n, second, 'mergeRequestReview-superseded.json');
    expect(gh.reviews(p.github.repo, n)).toHaveLength(1);
  }, 240_000);
  it('GitHub: a pull request touching pages no enabled test visits says so in its review; covered pages are not named', async () => {
    // The application's map (its latest completed discovery): four pages; one enabled test opens the cart.
    const applicationId = await applicationIdOf(stack.db, p.appShortId);
    const projectId = stack.tenant.projectId;
    const page = (pattern: string, example = pattern) => ({ pattern, example, status: 200, forms: [] });
    const discovery = await insertDiscoveryRows(stack.db, {
      projectId,
      applicationId,
      startUrl: 'https://shop.example.test/',
      map: [page('/'), page('/cart'), page('/orders/{id}', '/orders/1042'), page('/settings')],
      nav: ['/', '/cart', '/settings'],
    });
    await insertRecordedTestCase(stack.db, {
      projectId,
      applicationId,
      name: 'Open the cart',
      steps: [{ action: 'navigate', value: '/cart', description: 'Open the cart' }],
    });

    const n = 13;
    const sha = 'f'.repeat(40);
    const patch = '@@ -1 +1 @@\n-export const title = "Order";\n+export const title = "Your order";';
    gh.addPullRequest(p.github.repo, {
      number: n,
      title: 'Order page title',
      body: 'Renames the order page.',
      headSha: sha,
      headRef: 'feature/order-title',
      files: [
        // Next.js routes: the order page (no test visits it) and the cart page (a test does); a component (no page).
        { filename: 'app/orders/[orderId]/page.tsx', status: 'modified', additions: 1, deletions: 1, patch },
        { filename: 'app/cart/page.tsx', status: 'modified', additions: 1, deletions: 1, patch },
        { filename: 'src/components/Title.tsx', status: 'modified', additions: 1, deletions: 1, patch },
      ],
    });
    await p.github.deliverPullRequest(post(), 'opened', n, sha);
    await p.github.deliverDeploymentStatus(post(), sha, 'preview', 'https://pr-13.preview.test');
    await waitFor(async () => gh.reviews(p.github.repo, n).length === 1, 90_000, 'the review on GitHub');

    const [review] = gh.reviews(p.github.repo, n);
    // The model chose no test: the verdict is the results' (a Comment), the uncovered page is named beside it.
    expect(review).toMatchObject({ event: 'COMMENT', commitId: sha });
    expect(review!.body).toContain('Verdict: Comment');
    expect(review!.body).toContain(
      `Touches uncovered pages: \`/orders/{id}\` (no enabled test visits them, by the coverage map of discovery ${discovery.shortId}).`,
    );
    for (const other of ['`/cart`', '`/settings`', '`/`']) expect(review!.body).not.toContain(other);
    // The conversation's reply is the same text.
    const stored = await stack.db
      .selectFrom('change_reviews')
      .select(['verdict', 'state'])
      .where('pr_url', '=', `https://github.com/${p.github.repo}/pull/${n}`)
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({ verdict: 'Comment', state: 'COMPLETED' });
  }, 180_000);
});
