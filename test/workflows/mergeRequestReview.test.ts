import { fileURLToPath } from 'node:url';
import type { WorkflowHandle } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import type { ReviewDecisionSettings } from '../../src/services/merge-request-reviews.js';
import { signalMergeRequestReview } from '../../src/temporal/merge-request-lifecycle.js';
import {
  mergeRequestReviewStateQuery,
  type MergeRequestEvent,
  type MergeRequestReviewInput,
  type MergeRequestReviewState,
} from '../../workflows/merge-request-review-contract.js';
import { workflowIds } from '../../workflows/shared.js';
import type { ChangeReviewInput, ChangeReviewResult } from '../../workflows/change-review-contract.js';
import type { MergeRequestRef } from '../../src/domain/git.js';
import { finishStubReview } from './stubs/merge-request-review.js';
import { headAt as head, reviewSettings } from '../support/merge-request-heads.js';
import {
  useWorkflowHarness,
  recorder,
  until,
  type MockActivities,
  type WorkerQueue,
} from '../support/workflow-harness.js';

// mergeRequestReview on the time-skipping server with its activities mocked and a stand-in changeReview child that
// finishes when the test says so: every trigger (deployment, mention), the draft rule, superseding heads, duplicate
// deliveries and closing are driven by signals, as the webhook handler sends them.

const h = useWorkflowHarness({
  workflowsPath: fileURLToPath(new URL('./stubs/merge-request-review.ts', import.meta.url)),
});

type Args<K extends keyof MockActivities> = Parameters<NonNullable<MockActivities[K]>>[0];

function mocks(
  opts: { settings?: Partial<ReviewDecisionSettings>; stored?: Record<string, Record<string, string>> } = {},
) {
  const settings: ReviewDecisionSettings = { ...reviewSettings, ...opts.settings };
  let reviews = 0;
  const m = {
    loadMergeRequestReviewSettings: recorder(async (_i: Args<'loadMergeRequestReviewSettings'>) => settings),
    deploymentsForCommit: recorder(async (i: Args<'deploymentsForCommit'>) => opts.stored?.[i.sha] ?? {}),
    readMergeRequestHead: recorder(async (_i: Args<'readMergeRequestHead'>) => head('aaa')),
    beginMergeRequestReview: recorder(async (i: Args<'beginMergeRequestReview'>) => {
      const n = ++reviews;
      const review: ChangeReviewInput = {
        chatId: `chat-id-${n}`,
        chatShortId: `chat_${i.idempotencyKey.replace(/\W/g, '')}${n}`,
        projectId: i.projectId,
        changeReviewId: `cr-${n}`,
        assistantMessageId: `msg-${n}`,
      };
      return { review, url: `https://app.proctor.test/chat/${review.chatShortId}` };
    }),
    postWaitingComment: recorder(async (_i: Args<'postWaitingComment'>) => {}),
    announceMergeRequestReview: recorder(async (_i: Args<'announceMergeRequestReview'>) => {}),
    publishMergeRequestVerdict: recorder(async (_i: Args<'publishMergeRequestVerdict'>) => {}),
    endMergeRequestReview: recorder(async (_i: Args<'endMergeRequestReview'>) => {}),
  };
  return m satisfies MockActivities;
}

const sha = (s: string) => s.padEnd(40, '0');

function mergeRequest(): { ref: MergeRequestRef; input: MergeRequestReviewInput; id: string } {
  const ref: MergeRequestRef = { provider: 'github', repository: `acme/${h.uniqueId('shop')}`, number: 7 };
  return {
    ref,
    input: { projectId: 'project-1', ref },
    id: workflowIds.mergeRequestReview(ref.provider, ref.repository, ref.number),
  };
}

let deliveries = 0;
const delivery = () => `delivery-${++deliveries}`;
const opened = (s: string, draft = false): MergeRequestEvent => ({
  type: 'opened',
  deliveryId: delivery(),
  head: head(s, draft),
});
const pushed = (s: string): MergeRequestEvent => ({ type: 'updated', deliveryId: delivery(), head: head(s) });
const deployed = (s: string, environment = 'preview', url = `https://${s}.preview.test`): MergeRequestEvent => ({
  type: 'deployment',
  deliveryId: delivery(),
  sha: sha(s),
  environment,
  url,
});

async function send(q: WorkerQueue, input: MergeRequestReviewInput, event: MergeRequestEvent): Promise<void> {
  await signalMergeRequestReview(q.target, input, event);
}

const state = (handle: WorkflowHandle) => handle.query(mergeRequestReviewStateQuery);
async function untilState(
  handle: WorkflowHandle,
  check: (s: MergeRequestReviewState) => boolean,
): Promise<MergeRequestReviewState> {
  let last: MergeRequestReviewState | undefined;
  // Generous: the first workflow task of a file waits for the worker to start, slow on a busy machine.
  await until(async () => check((last = await state(handle))), 60_000);
  return last!;
}

/** Tells the running stand-in review how it ends. */
async function finish(
  handle: WorkflowHandle,
  outcome: { verdict: ChangeReviewResult['verdict'] } | { error: string },
): Promise<void> {
  const s = await untilState(handle, (x) => x.state === 'reviewing' && x.reviewChatShortId !== null);
  // The child starts right after the conversation is recorded: signal it once it exists.
  await until(
    async () => (
      await h.client.workflow.getHandle(workflowIds.chat(s.reviewChatShortId!)).signal(finishStubReview, outcome),
      true
    ),
    60_000,
  );
}

type MergeRequest = ReturnType<typeof mergeRequest>;

/**
 * Runs `body` with a worker for the mocks on a new merge request and its workflow's handle; the workflow, still
 * running, is terminated after (`ends`: the body waited for it to end).
 */
async function onMergeRequest(
  m: MockActivities,
  body: (q: WorkerQueue, mr: MergeRequest, handle: WorkflowHandle) => Promise<void>,
  { ends = false } = {},
): Promise<void> {
  const mr = mergeRequest();
  await h.withWorker(m, async (q) => {
    const handle = h.client.workflow.getHandle(mr.id);
    await body(q, mr, handle);
    if (!ends) await handle.terminate('test done');
  });
}

// Each wait below may take up to 60 s on a busy machine (the first workflow task waits for the worker); a test gets
// room for its waits, so one that hangs fails at the wait that did not end ("condition not met", with its line), not
// at vitest's 60 s with no clue (a fresh run's push-mid-review case, once).
describe('mergeRequestReview', { timeout: 240_000 }, () => {
  it('opened, not deployed: one waiting comment; the deployment of the head starts the review; one verdict', async () => {
    const m = mocks();
    await onMergeRequest(
      m,
      async (q, mr, handle) => {
        await send(q, mr.input, opened('aaa'));
        const waiting = await untilState(handle, (s) => s.state === 'waiting');
        expect(waiting.waitingFor[0]).toBe('preview');
        expect(waiting.headSha).toBe(sha('aaa'));
        // A deployment of another commit (or of an unmapped environment) does not make it ready: the one review
        // below is started by the `preview` deployment's delivery (checked at the end).
        await send(q, mr.input, deployed('bbb'));
        await send(q, mr.input, deployed('aaa', 'storybook'));

        const ready = deployed('aaa');
        await send(q, mr.input, ready);
        await finish(handle, { verdict: 'Approved' });
        await untilState(handle, (s) => s.state === 'reviewed' && s.lastVerdict === 'Approved');
        await send(q, mr.input, { type: 'closed', deliveryId: delivery(), head: head('aaa') });
        await handle.result();

        expect(m.postWaitingComment.calls).toHaveLength(1);
        expect(m.postWaitingComment.calls[0]![0]).toMatchObject({ head: head('aaa'), handle: '@proctor' });
        expect(m.beginMergeRequestReview.calls).toHaveLength(1);
        expect(m.beginMergeRequestReview.calls[0]![0]).toMatchObject({
          head: head('aaa'),
          deployments: { preview: 'https://aaa.preview.test', storybook: 'https://aaa.preview.test' },
          trigger: { deliveryId: ready.deliveryId, event: 'deployment' },
        });
        expect(m.announceMergeRequestReview.calls).toHaveLength(1);
        // The waiting comment is edited to say the review started (its key is passed), not repeated.
        expect(m.announceMergeRequestReview.calls[0]![0].waitingKey).toBe(m.postWaitingComment.calls[0]![0].key);
        expect(m.publishMergeRequestVerdict.calls).toHaveLength(1);
        expect(m.publishMergeRequestVerdict.calls[0]![0]).toMatchObject({
          headSha: sha('aaa'),
          result: { verdict: 'Approved' },
        });
        expect(m.endMergeRequestReview.calls).toHaveLength(0);
      },
      { ends: true },
    );
  });

  it('a deployment stored before the merge request was seen counts: the review starts at once', async () => {
    const m = mocks({ stored: { [sha('ccc')]: { preview: 'https://early.preview.test' } } });
    await onMergeRequest(m, async (q, mr, handle) => {
      await send(q, mr.input, opened('ccc'));
      await finish(handle, { verdict: 'Changes Requested' });
      await untilState(handle, (s) => s.state === 'reviewed');
      expect(m.postWaitingComment.calls).toHaveLength(0);
      expect(m.beginMergeRequestReview.calls[0]![0].deployments).toEqual({ preview: 'https://early.preview.test' });
      expect(m.publishMergeRequestVerdict.calls[0]![0].result.verdict).toBe('Changes Requested');
    });
  });

  it('not ready: a mention with a URL starts the review against that URL; the same delivery twice starts one', async () => {
    const m = mocks();
    await onMergeRequest(m, async (q, mr, handle) => {
      await send(q, mr.input, opened('ddd'));
      await untilState(handle, (s) => s.state === 'waiting');
      const mention: MergeRequestEvent = {
        type: 'mention',
        deliveryId: delivery(),
        commentId: '9001',
        url: 'https://manual.preview.test',
        author: 'octocat',
      };
      await send(q, mr.input, mention);
      await send(q, mr.input, mention);
      await finish(handle, { verdict: 'Comment' });
      await untilState(handle, (s) => s.state === 'reviewed');

      expect(m.beginMergeRequestReview.calls).toHaveLength(1);
      expect(m.beginMergeRequestReview.calls[0]![0].trigger).toEqual({
        deliveryId: mention.deliveryId,
        event: 'mention',
        url: 'https://manual.preview.test',
        commentId: '9001',
      });
      expect(m.announceMergeRequestReview.calls[0]![0].trigger.commentId).toBe('9001');
      expect(m.postWaitingComment.calls).toHaveLength(1);
      expect(m.publishMergeRequestVerdict.calls).toHaveLength(1);
    });
  });

  it('a mention on a merge request it has not seen reads the head from the provider', async () => {
    const m = mocks({ settings: { autoRun: false } });
    await onMergeRequest(m, async (q, mr, handle) => {
      await send(q, mr.input, {
        type: 'mention',
        deliveryId: delivery(),
        commentId: '1',
        url: 'https://x.preview.test',
        author: 'octocat',
      });
      await finish(handle, { verdict: 'Approved' });
      await untilState(handle, (s) => s.state === 'reviewed');
      expect(m.readMergeRequestHead.calls).toHaveLength(1);
      expect(m.beginMergeRequestReview.calls[0]![0].head.sha).toBe(sha('aaa'));
    });
  });

  it('a draft is skipped (nothing posted); ready for review with its deployment is reviewed', async () => {
    const m = mocks({ stored: { [sha('eee')]: { preview: 'https://eee.preview.test' } } });
    await onMergeRequest(m, async (q, mr, handle) => {
      await send(q, mr.input, opened('eee', true));
      const skipped = await untilState(handle, (s) => s.state === 'skipped-draft');
      expect(skipped.waitingFor).toEqual(['ready for review']);
      expect(m.postWaitingComment.calls).toHaveLength(0);
      expect(m.beginMergeRequestReview.calls).toHaveLength(0);

      await send(q, mr.input, { type: 'ready_for_review', deliveryId: delivery(), head: head('eee') });
      await finish(handle, { verdict: 'Approved' });
      await untilState(handle, (s) => s.state === 'reviewed');
      expect(m.beginMergeRequestReview.calls).toHaveLength(1);
      expect(m.beginMergeRequestReview.calls[0]![0].trigger.event).toBe('ready_for_review');
    });
  });

  it('drafts are reviewed when the settings include them', async () => {
    const m = mocks({
      settings: { includeDrafts: true },
      stored: { [sha('fff')]: { preview: 'https://fff.preview.test' } },
    });
    await onMergeRequest(m, async (q, mr, handle) => {
      await send(q, mr.input, opened('fff', true));
      await finish(handle, { verdict: 'Approved' });
      await untilState(handle, (s) => s.state === 'reviewed');
      expect(m.beginMergeRequestReview.calls).toHaveLength(1);
    });
  });

  it('a push mid-review cancels the running review; one verdict, for the new head', async () => {
    const m = mocks({ stored: { [sha('a11')]: { preview: 'https://a11.preview.test' } } });
    await onMergeRequest(m, async (q, mr, handle) => {
      await send(q, mr.input, opened('a11'));
      const first = await untilState(handle, (s) => s.state === 'reviewing' && s.reviewChatShortId !== null);
      await until(() => m.announceMergeRequestReview.calls.length === 1);

      await send(q, mr.input, pushed('b22'));
      // The old child is cancelled (its stand-in never finishes on its own) and said to be superseded.
      await until(() => m.endMergeRequestReview.calls.length === 1);
      expect(m.endMergeRequestReview.calls[0]![0]).toMatchObject({ headSha: sha('a11'), outcome: 'superseded' });
      const oldChild = await h.client.workflow.getHandle(workflowIds.chat(first.reviewChatShortId!)).describe();
      expect(oldChild.status.name).toBe('CANCELLED');
      const waiting = await untilState(handle, (s) => s.state === 'waiting');
      expect(waiting.headSha).toBe(sha('b22'));

      await send(q, mr.input, deployed('b22'));
      await until(() => m.beginMergeRequestReview.calls.length === 2);
      await finish(handle, { verdict: 'Approved' });
      await untilState(handle, (s) => s.state === 'reviewed');
      expect(m.publishMergeRequestVerdict.calls).toHaveLength(1);
      expect(m.publishMergeRequestVerdict.calls[0]![0].headSha).toBe(sha('b22'));
      // The waiting comment: posted once for the new head's wait (none for the first, deployed at once).
      expect(m.postWaitingComment.calls.map((c) => c[0].head.sha)).toEqual([sha('b22')]);
    });
  });

  // The state named the superseded review's conversation until the new one was recorded: a reader (and this file's
  // `finish`, which then signalled the cancelled child for 60 s) took the old conversation for the running review.
  it("while the new head's review is being recorded, the state names no conversation, not the cancelled one", async () => {
    const m = mocks({ stored: { [sha('f66')]: { preview: 'https://f66.preview.test' } } });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const begin = m.beginMergeRequestReview;
    const holding = Object.assign(
      async (i: Args<'beginMergeRequestReview'>) => {
        if (begin.calls.length === 1) await held;
        return begin(i);
      },
      { calls: begin.calls },
    );
    await onMergeRequest({ ...m, beginMergeRequestReview: holding }, async (q, mr, handle) => {
      await send(q, mr.input, opened('f66'));
      const first = await untilState(handle, (s) => s.state === 'reviewing' && s.reviewChatShortId !== null);
      await send(q, mr.input, pushed('f77'));
      await untilState(handle, (s) => s.state === 'waiting' && s.headSha === sha('f77'));
      await send(q, mr.input, deployed('f77'));
      // Held until read, and let go whatever the read finds: the worker cannot stop while an activity runs.
      const beginning = await untilState(handle, (s) => s.state === 'reviewing' && s.headSha === sha('f77')).finally(
        release,
      );
      expect(beginning.reviewChatShortId).toBeNull();
      const second = await untilState(handle, (s) => s.state === 'reviewing' && s.reviewChatShortId !== null);
      expect(second.reviewChatShortId).not.toBe(first.reviewChatShortId);
      await finish(handle, { verdict: 'Approved' });
      await untilState(handle, (s) => s.state === 'reviewed' && s.lastVerdict === 'Approved');
      expect(m.publishMergeRequestVerdict.calls.map((c) => c[0].headSha)).toEqual([sha('f77')]);
    });
  });

  it('a failed review says so once and is not retried for the same head until asked', async () => {
    const m = mocks({ stored: { [sha('c33')]: { preview: 'https://c33.preview.test' } } });
    await onMergeRequest(m, async (q, mr, handle) => {
      await send(q, mr.input, opened('c33'));
      await finish(handle, { error: 'the preview answered 502' });
      await untilState(handle, (s) => s.state === 'reviewed');
      expect(m.endMergeRequestReview.calls).toHaveLength(1);
      expect(m.endMergeRequestReview.calls[0]![0]).toMatchObject({ outcome: 'failed', headSha: sha('c33') });
      expect(m.endMergeRequestReview.calls[0]![0].reason).toContain('the preview answered 502');
      expect(m.publishMergeRequestVerdict.calls).toHaveLength(0);
    });
  });

  it('closing ends the workflow and cancels a running review; without settings nothing happens', async () => {
    const m = mocks({ stored: { [sha('d44')]: { preview: 'https://d44.preview.test' } } });
    await onMergeRequest(
      m,
      async (q, mr, handle) => {
        await send(q, mr.input, opened('d44'));
        await untilState(handle, (s) => s.state === 'reviewing' && s.reviewChatShortId !== null);
        await send(q, mr.input, { type: 'closed', deliveryId: delivery(), head: head('d44') });
        await handle.result();
        expect(m.publishMergeRequestVerdict.calls).toHaveLength(0);
      },
      { ends: true },
    );

    const none = {
      ...mocks(),
      loadMergeRequestReviewSettings: recorder(async (_i: Args<'loadMergeRequestReviewSettings'>) => null),
    };
    await onMergeRequest(none, async (q, other, handle) => {
      await send(q, other.input, opened('e55'));
      const idle = await untilState(handle, (s) => s.state === 'idle');
      expect(idle.waitingFor).toEqual(['review settings for this repository']);
      expect(none.postWaitingComment.calls).toHaveLength(0);
    });
  });
});
