// Merge-request review survives a `proctor worker` process killed with SIGKILL while it waits for a deployment and
// while it reviews: the next worker carries on, and the merge request gets exactly one start comment and one verdict.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergeRequestReviewStateQuery } from '../../workflows/merge-request-review-contract.js';
import { workflowIds } from '../../workflows/shared.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { startFakeGitLab, type FakeGitLab } from '../support/fake-gitlab.js';
import { connectGitProviders, type Providers } from '../support/merge-request-stack.js';
import { waitFor } from '../support/net.js';
import { reviewResponder } from '../support/review-script.js';
import { startScriptedLlm, type ScriptedLlm } from '../support/scripted-llm.js';
import { deliverGitHub, poster } from '../support/webhook-payloads.js';
import { startStack, type Stack } from '../support/worker-context.js';
import {
  isRunning,
  killWorker,
  startWorkerProcess,
  workerProcessEnv,
  type WorkerProcess,
} from '../support/worker-process.js';

describe('merge-request review across a killed worker', () => {
  let llm: ScriptedLlm;
  let stack: Stack;
  let gh: FakeGitHub;
  let gl: FakeGitLab;
  let p: Providers;
  const blobDir = mkdtempSync(join(tmpdir(), 'proctor-mr-crash-'));
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    [llm, gh, gl] = await Promise.all([startScriptedLlm(), startFakeGitHub(), startFakeGitLab()]);
    stack = await startStack({ worker: false });
    p = await connectGitProviders(stack, gh, gl);
    llm.enqueue(
      ...Array.from({ length: 40 }, () =>
        reviewResponder({
          select: () => ({ existingTestCaseIds: [], newTests: [], reasoning: 'Only an internal refactor.' }),
          verdict: () => ({}),
        }),
      ),
    );
  }, 120_000);
  afterAll(async () => {
    for (const w of workers) if (isRunning(w)) await killWorker(w);
    await stack?.close();
    await Promise.all([llm?.stop(), gh?.close(), gl?.close()]);
    rmSync(blobDir, { recursive: true, force: true });
  });

  const worker = () => {
    const w = startWorkerProcess(
      workerProcessEnv(stack, llm, blobDir, { PROCTOR_APP_URL: 'https://app.proctor.test' }),
    );
    workers.push(w);
    return w;
  };
  const state = async (n: number) =>
    (await stack.temporal.get()).workflow
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
    const n = 31;
    const sha = 'f'.repeat(40);
    const first = worker();
    p.github.openPullRequest(n, sha);
    expect(
      (
        await deliverGitHub(
          poster(stack.app),
          p.github.secret,
          'pull_request',
          p.github.pullRequestEvent('opened', n, sha),
        )
      ).status,
    ).toBe(202);
    await waitFor(
      async () => {
        if (!isRunning(first)) throw new Error(`the worker exited early:\n${first.output()}`);
        return (await state(n))?.state === 'waiting' && gh.comments(p.github.repo, n).length === 1;
      },
      90_000,
      'the review to wait, with its waiting comment',
    ).catch(explain(n, first));
    await killWorker(first);

    // Accepted while no worker runs: the signal waits in Temporal.
    expect(
      (
        await deliverGitHub(
          poster(stack.app),
          p.github.secret,
          'deployment_status',
          p.github.deploymentStatus(sha, 'preview', 'https://pr-31.preview.test'),
        )
      ).status,
    ).toBe(202);
    worker();
    await waitFor(async () => gh.reviews(p.github.repo, n).length === 1, 120_000, 'the review after the restart');
    await waitFor(async () => (await state(n))?.state === 'reviewed', 30_000, 'the workflow to say reviewed');

    expect(starts(n)).toHaveLength(1);
    expect(gh.comments(p.github.repo, n)).toHaveLength(2);
    expect(gh.reviews(p.github.repo, n)).toHaveLength(1);
    expect(gh.statuses(p.github.repo, sha).map((s) => s.state)).toEqual(['pending', 'success']);
  }, 240_000);

  it('killed while reviewing: the next worker finishes it; one start comment, one verdict', async () => {
    const n = 32;
    const sha = '1'.repeat(40);
    // The review cannot read the change for a few seconds (503s, retried): the worker dies in that window.
    gh.failNext('pulls.get', 3);
    const current = worker();
    p.github.openPullRequest(n, sha);
    await deliverGitHub(
      poster(stack.app),
      p.github.secret,
      'deployment_status',
      p.github.deploymentStatus(sha, 'preview', 'https://pr-32.preview.test'),
    );
    await deliverGitHub(
      poster(stack.app),
      p.github.secret,
      'pull_request',
      p.github.pullRequestEvent('opened', n, sha),
    );
    await waitFor(
      async () => {
        if (!isRunning(current)) throw new Error(`the worker exited early:\n${current.output()}`);
        return starts(n).length === 1 && (await state(n))?.state === 'reviewing';
      },
      90_000,
      'the review to start',
    ).catch(explain(n, current));
    expect(gh.reviews(p.github.repo, n)).toHaveLength(0);
    await killWorker(current);

    worker();
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
