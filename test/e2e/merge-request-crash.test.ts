// Merge-request review survives a `proctor worker` process killed with SIGKILL while it waits for a deployment and
// while it reviews: the next worker carries on, and the merge request gets exactly one start comment and one verdict.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergeRequestReviewStateQuery } from '../../workflows/merge-request-review-contract.js';
import { workflowIds } from '../../workflows/shared.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { startFakeGitLab, type FakeGitLab } from '../support/fake-gitlab.js';
import { useCrashStack } from '../support/crash-stack.js';
import { connectGitProviders, type Providers } from '../support/merge-request-stack.js';
import { waitFor } from '../support/net.js';
import { nothingToReview } from '../support/review-script.js';
import { poster } from '../support/webhook-payloads.js';
import { killWorker, waitWhileRunning, type WorkerProcess } from '../support/worker-process.js';

describe('merge-request review across a killed worker', () => {
  const crash = useCrashStack({ name: 'mr-crash', env: { PROCTOR_APP_URL: 'https://app.proctor.test' } });
  let gh: FakeGitHub;
  let gl: FakeGitLab;
  let p: Providers;

  beforeAll(async () => {
    [gh, gl] = await Promise.all([startFakeGitHub(), startFakeGitLab()]);
    p = await connectGitProviders(crash.stack, gh, gl);
    crash.llm.enqueue(...nothingToReview(40));
  }, 120_000);
  afterAll(async () => {
    await Promise.all([gh?.close(), gl?.close()]);
  });

  const state = async (n: number) =>
    (await crash.stack.temporal.get()).workflow
      .getHandle(workflowIds.mergeRequestReview('github', p.github.repo, n))
      .query(mergeRequestReviewStateQuery)
      .catch(() => null);
  // A wait that times out says what the review and the worker were doing.
  const explain = (n: number, w: WorkerProcess) => async (err: Error) => {
    const comments = gh.comments(p.github.repo, n).map((c) => c.body.slice(0, 80));
    throw new Error(
      `${err.message}; review state: ${JSON.stringify(await state(n))}; comments: ${JSON.stringify(comments)}; worker output:\n${w.output()}`,
    );
  };
  const starts = (n: number) =>
    gh.comments(p.github.repo, n).filter((c) => c.body.includes('is testing this merge request'));

  it('killed while waiting for the deployment: the next worker reviews once the deployment arrives', async () => {
    const { stack } = crash;
    const n = 31;
    const sha = 'f'.repeat(40);
    const first = crash.startWorker();
    p.github.openPullRequest(n, sha);
    expect((await p.github.deliverPullRequest(poster(stack.app), 'opened', n, sha)).status).toBe(202);
    await waitWhileRunning(
      first,
      async () => (await state(n))?.state === 'waiting' && gh.comments(p.github.repo, n).length === 1,
      90_000,
      'the review to wait, with its waiting comment',
    ).catch(explain(n, first));
    await killWorker(first);

    // Accepted while no worker runs: the signal waits in Temporal.
    expect(
      (await p.github.deliverDeploymentStatus(poster(stack.app), sha, 'preview', 'https://pr-31.preview.test')).status,
    ).toBe(202);
    crash.startWorker();
    await waitFor(async () => gh.reviews(p.github.repo, n).length === 1, 120_000, 'the review after the restart');
    await waitFor(async () => (await state(n))?.state === 'reviewed', 30_000, 'the workflow to say reviewed');

    expect(starts(n)).toHaveLength(1);
    expect(gh.comments(p.github.repo, n)).toHaveLength(2);
    expect(gh.reviews(p.github.repo, n)).toHaveLength(1);
    expect(gh.statuses(p.github.repo, sha).map((s) => s.state)).toEqual(['pending', 'success']);
  }, 240_000);

  it('killed while reviewing: the next worker finishes it; one start comment, one verdict', async () => {
    const { stack } = crash;
    const n = 32;
    const sha = '1'.repeat(40);
    // The review cannot read the change for a few seconds (503s, retried): the worker dies in that window.
    gh.failNext('pulls.get', 3);
    const current = crash.startWorker();
    p.github.openPullRequest(n, sha);
    await p.github.deliverDeploymentStatus(poster(stack.app), sha, 'preview', 'https://pr-32.preview.test');
    await p.github.deliverPullRequest(poster(stack.app), 'opened', n, sha);
    await waitWhileRunning(
      current,
      async () => starts(n).length === 1 && (await state(n))?.state === 'reviewing',
      90_000,
      'the review to start',
    ).catch(explain(n, current));
    expect(gh.reviews(p.github.repo, n)).toHaveLength(0);
    await killWorker(current);

    crash.startWorker();
    await waitFor(async () => gh.reviews(p.github.repo, n).length === 1, 120_000, 'the verdict after the restart');
    await waitFor(async () => (await state(n))?.state === 'reviewed', 30_000, 'the workflow to say reviewed');
    expect(starts(n)).toHaveLength(1);
    expect(gh.comments(p.github.repo, n)).toHaveLength(1);
    expect(gh.reviews(p.github.repo, n)).toHaveLength(1);
    const reviews = await stack.db
      .selectFrom('change_reviews')
      .select('state')
      .where('pr_url', '=', `https://github.com/${p.github.repo}/pull/${n}`)
      .execute();
    expect(reviews).toEqual([{ state: 'COMPLETED' }]);
  }, 240_000);
});
