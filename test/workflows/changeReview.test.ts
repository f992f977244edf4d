import { fileURLToPath } from 'node:url';
import { Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import type { ReviewNewTest, ReviewSelection } from '../../activities/change-review.js';
import type { UncoveredPages } from '../../src/domain/change-review-reply.js';
import type { VerdictDraft } from '../../src/llm/change-review.js';
import { cancelChatReplySignal, chatMessageSignal } from '../../workflows/chat-contract.js';
import {
  changeReviewStateQuery,
  type ChangeReviewInput,
  type ChangeReviewTestResult,
} from '../../workflows/change-review-contract.js';
import { failureTypes, workflowIds } from '../../workflows/shared.js';
import {
  useWorkflowHarness,
  type WorkflowHarness,
  recorder,
  until,
  type MockActivities,
} from '../support/workflow-harness.js';
import { failureForGood } from '../support/activity-failures.js';

// changeReview on the time-skipping server with its activities mocked and its children stood in for
// (test/workflows/stubs/change-review.ts): every branch, driven by what the activities answer and the signals sent.

const h = useWorkflowHarness({
  workflowsPath: fileURLToPath(new URL('./stubs/change-review.ts', import.meta.url)),
});

const appUrl = 'https://app.proctor.test';
const runUrl = `${appUrl}/runs/run_ok`;
const checkout = { id: 'tc-checkout', name: 'Checkout' };
const passed = (id: string, name: string, origin: 'new' | 'existing' = 'existing'): ChangeReviewTestResult => ({
  testCaseId: id,
  name,
  origin,
  result: 'PASSED',
  url: runUrl,
});
const newTest = (id: string, name: string): ReviewNewTest => ({
  id,
  name,
  goal: `${name} goal`,
  applicationShortId: 'app_shop',
});

interface Options {
  paths?: string[];
  selection?: ReviewSelection;
  results?: ChangeReviewTestResult[];
  verdict?: () => Promise<VerdictDraft | undefined>;
  load?: () => Promise<void>;
  select?: () => Promise<void>;
  runShortId?: string;
  uncovered?: () => Promise<UncoveredPages[]>;
}

function activities(opts: Options = {}) {
  return {
    loadReviewChange: recorder(async (_input: { changeReviewId: string }) => {
      await opts.load?.();
      return {
        title: 'Express shipping',
        paths: opts.paths ?? ['src/Checkout.tsx'],
        appUrl,
        chatUrl: `${appUrl}/chats/chat_1`,
        source: 'api' as const,
      };
    }),
    reviewProgress: recorder(
      async (_input: { changeReviewId: string; assistantMessageId: string; phase: string; text: string }) => true,
    ),
    selectReviewTests: recorder(async (_input: { changeReviewId: string }) => {
      await opts.select?.();
      return opts.selection ?? { existing: [checkout], newTests: [], reasoning: 'The change touches checkout.' };
    }),
    createReviewTestCase: recorder(
      async (input: { changeReviewId: string; projectId: string; test: ReviewNewTest }) => ({
        id: input.test.id,
        name: input.test.name,
        environmentUrl: 'https://preview.shop.test',
      }),
    ),
    createReviewRun: recorder(async (_input: { changeReviewId: string; testCaseIds: string[] }) => ({
      runId: 'run-uuid',
      runShortId: opts.runShortId ?? 'run_ok',
      concurrency: 100,
    })),
    reviewRunResults: recorder(
      async (_input: { projectId: string; runId: string; newTestIds: string[] }) =>
        opts.results ?? [passed(checkout.id, checkout.name)],
    ),
    writeReviewVerdict: recorder(async (_input: { changeReviewId: string; reasoning: string; rows: unknown[] }) =>
      opts.verdict
        ? opts.verdict()
        : { verdict: 'Approved' as const, summary: 'Checkout still works.', evaluationDetails: 'Checkout passed.' },
    ),
    reviewUncoveredPages: recorder(async (_input: { changeReviewId: string }) =>
      opts.uncovered ? opts.uncovered() : [],
    ),
    finishChangeReview: recorder(
      async (_input: {
        changeReviewId: string;
        assistantMessageId: string;
        verdict: string;
        summary: string;
        tests: ChangeReviewTestResult[];
        body: string;
      }) => {},
    ),
    endChangeReview: recorder(
      async (_input: {
        changeReviewId: string;
        assistantMessageId: string;
        state: 'FAILED' | 'CANCELLED';
        reason?: string;
      }) => {},
    ),
    finishChatReply: recorder(
      async (_input: { assistantMessageId: string; status: string; text?: string; toolsUsed: string[] }) => {},
    ),
  } satisfies MockActivities;
}

const reviewInput = (): ChangeReviewInput => {
  const chatShortId = h.uniqueId('chat');
  return {
    chatId: 'chat-uuid',
    chatShortId,
    projectId: 'project-1',
    changeReviewId: 'review-1',
    assistantMessageId: 'reply-1',
  };
};

/** Runs a review to its end; `during` acts on the running workflow first. */
async function runReview(
  mocks: ReturnType<typeof activities>,
  during?: (
    handle: Awaited<ReturnType<Parameters<Parameters<WorkflowHarness['withWorker']>[1]>[0]['start']>>,
  ) => Promise<void>,
) {
  const input = reviewInput();
  return h.withWorker(mocks, async (q) => {
    const handle = await q.start('changeReview', [input], workflowIds.chat(input.chatShortId));
    await during?.(handle);
    return { input, result: await handle.result().catch((err: unknown) => err) };
  });
}

const phases = (mocks: ReturnType<typeof activities>) => mocks.reviewProgress.calls.map(([c]) => c.phase);
const body = (mocks: ReturnType<typeof activities>) => mocks.finishChangeReview.calls[0]![0].body;

describe('changeReview', () => {
  it('a docs-only change: no tests chosen or run, a Comment saying it cannot be verified in a browser', async () => {
    const mocks = activities({ paths: ['README.md', 'docs/setup.md'] });
    const { result } = await runReview(mocks);

    expect(result).toMatchObject({ verdict: 'Comment', tests: [], url: `${appUrl}/chats/chat_1`, source: 'api' });
    expect(mocks.selectReviewTests.calls).toEqual([]);
    expect(mocks.createReviewRun.calls).toEqual([]);
    expect(body(mocks)).toBe(
      '**Verdict: Comment**\n\nUnable to verify this change in a browser: the change only touches documentation files. No tests were selected or run.',
    );
    expect(phases(mocks)).toEqual(['loading']);
  });

  it('existing tests pass: one run of the chosen tests, the model approves, progress on the way, the verdict stored with its table', async () => {
    const mocks = activities();
    const { result } = await runReview(mocks);

    expect(result).toMatchObject({
      verdict: 'Approved',
      summary: 'Checkout still works.',
      runShortId: 'run_ok',
      tests: [passed(checkout.id, checkout.name)],
    });
    expect(mocks.createReviewRun.calls).toEqual([[{ changeReviewId: 'review-1', testCaseIds: [checkout.id] }]]);
    expect(phases(mocks)).toEqual(['loading', 'selecting', 'running', 'verdict']);
    // The progress text grows line by line on the one reply.
    const texts = mocks.reviewProgress.calls.map(([c]) => c.text);
    texts.slice(1).forEach((t, i) => expect(t.startsWith(texts[i]!)).toBe(true));
    expect(texts.at(-1)).toContain('Selected 1 existing test: "Checkout". Running 1 test on the preview…');
    expect(body(mocks)).toContain('| Checkout | existing | PASSED | [open](https://app.proctor.test/runs/run_ok) |');
    expect(body(mocks)).toMatch(/^\*\*Verdict: Approved\*\*\n\nCheckout still works\./);
  });

  it("a change touching pages no enabled test visits: the reply lists them under the summary, the verdict stays the results'", async () => {
    const shop = { applicationName: 'Shop', discoveryShortId: 'discovery_1' };
    const mocks = activities({
      uncovered: async () => [{ ...shop, patterns: ['/orders/{id}', '/settings'] }],
    });
    const { result } = await runReview(mocks);

    expect(mocks.reviewUncoveredPages.calls).toEqual([[{ changeReviewId: 'review-1' }]]);
    expect(result).toMatchObject({ verdict: 'Approved' });
    expect(body(mocks)).toMatch(
      /^\*\*Verdict: Approved\*\*\n\nCheckout still works\.\n\nTouches uncovered pages: `\/orders\/\{id\}`, `\/settings` \(no enabled test visits them, by the coverage map of discovery discovery_1\)\.\n\n### Results/,
    );

    // Nothing run: the pages are said all the same (they are what no test checks).
    const idle = activities({
      selection: { existing: [], newTests: [], reasoning: 'No test opens the orders.' },
      uncovered: async () => [{ ...shop, patterns: ['/orders/{id}'] }],
    });
    expect((await runReview(idle)).result).toMatchObject({ verdict: 'Comment', tests: [] });
    expect(body(idle)).toContain('Touches uncovered pages: `/orders/{id}` (no enabled test visits them');
  });

  it('the coverage map cannot be read: the review completes without the line, after a few attempts', async () => {
    const mocks = activities({
      uncovered: async () => {
        throw new Error('relation "discoveries" does not exist');
      },
    });
    const { result } = await runReview(mocks);

    expect(result).toMatchObject({ verdict: 'Approved' });
    expect(mocks.reviewUncoveredPages.calls).toHaveLength(3);
    expect(body(mocks)).not.toContain('uncovered');
  });

  it('a FAILED test is never Approved, whatever the model says: Changes Requested, naming the failing step', async () => {
    const failed: ChangeReviewTestResult = {
      ...passed(checkout.id, checkout.name),
      result: 'FAILED',
      detail: '"Place the order" — step 6 (click): no button "Place order"',
    };
    const mocks = activities({ results: [failed] });
    const { result } = await runReview(mocks);

    expect(result).toMatchObject({ verdict: 'Changes Requested' });
    expect(mocks.finishChangeReview.calls[0]![0].verdict).toBe('Changes Requested');
    expect(body(mocks)).toContain('_The model proposed "Approved"; a failed test means changes are requested._');
    expect(body(mocks)).toContain(
      '| Checkout | existing | FAILED: "Place the order" — step 6 (click): no button "Place order" |',
    );
  });

  it('new tests: created under their ids and burned in; one that fails burn-in is NOT_RUN (so not Approved), the other runs with the existing', async () => {
    const coupon = newTest('tc-coupon', 'Apply a coupon');
    const broken = newTest('bad-gift', 'Gift wrap');
    const mocks = activities({
      selection: { existing: [checkout], newTests: [coupon, broken], reasoning: 'Coupons are new.' },
      results: [passed(checkout.id, checkout.name), passed(coupon.id, coupon.name, 'new')],
    });
    const { result } = await runReview(mocks);

    expect(mocks.createReviewTestCase.calls.map(([c]) => c.test.id).sort()).toEqual([broken.id, coupon.id]);
    expect(mocks.createReviewRun.calls[0]![0].testCaseIds).toEqual([checkout.id, coupon.id]);
    expect(mocks.reviewRunResults.calls[0]![0].newTestIds).toEqual([coupon.id]);
    expect(phases(mocks)).toEqual(['loading', 'selecting', 'creating-tests', 'running', 'verdict']);
    expect(result).toMatchObject({ verdict: 'Comment' });
    expect((result as { tests: ChangeReviewTestResult[] }).tests.at(-1)).toEqual({
      testCaseId: broken.id,
      name: 'Gift wrap',
      origin: 'new',
      result: 'NOT_RUN',
      detail: 'could not be generated on the preview: no button named "Apply coupon"',
      url: `${appUrl}/test-cases/${broken.id}`,
    });
  });

  it('nothing chosen: nothing runs, no verdict call, a Comment with the reason', async () => {
    const mocks = activities({ selection: { existing: [], newTests: [], reasoning: 'Only a log line changed.' } });
    const { result } = await runReview(mocks);

    expect(result).toMatchObject({ verdict: 'Comment', tests: [] });
    expect(mocks.createReviewRun.calls).toEqual([]);
    expect(mocks.writeReviewVerdict.calls).toEqual([]);
    expect((result as { summary: string }).summary).toContain('Only a log line changed.');
  });

  it('the verdict model fails: the verdict comes from the results, saying so; a run that broke still gives a verdict', async () => {
    const mocks = activities({
      runShortId: 'run_broken',
      verdict: async () => {
        throw failureForGood('the LLM endpoint failed after retries: 500', failureTypes.llmUnavailable);
      },
    });
    const { result } = await runReview(mocks);

    expect(result).toMatchObject({ verdict: 'Approved', runShortId: 'run_broken' });
    expect(body(mocks)).toContain(
      '_The model could not write the verdict (the LLM endpoint failed after retries: 500); it was decided from the results._',
    );
  });

  it('the change cannot be read (no integration): the reply ends FAILED with the reason and the workflow fails', async () => {
    const mocks = activities({
      load: async () => {
        throw failureForGood('no github integration is configured', failureTypes.invalid);
      },
    });
    const { result } = await runReview(mocks);

    expect(mocks.endChangeReview.calls).toEqual([
      [
        {
          changeReviewId: 'review-1',
          assistantMessageId: 'reply-1',
          state: 'FAILED',
          reason: 'no github integration is configured',
        },
      ],
    ]);
    expect(mocks.finishChangeReview.calls).toEqual([]);
    expect(result).toBeInstanceOf(WorkflowFailedError);
    expect((result as WorkflowFailedError).cause).toMatchObject({
      type: failureTypes.changeReviewFailed,
      message: expect.stringContaining('failed: no github integration is configured'),
    });
  });

  it('follow-up messages during the review wait, then are answered in turn order after the verdict; the result comes after them', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const mocks = activities({ select: () => gate });
    const { result } = await runReview(mocks, async (handle) => {
      await until(async () => (await handle.query(changeReviewStateQuery)).phase === 'selecting');
      await handle.signal(chatMessageSignal, { turn: 3, userMessageId: 'u3', assistantMessageId: 'a3' });
      await handle.signal(chatMessageSignal, { turn: 2, userMessageId: 'u2', assistantMessageId: 'a2' });
      await handle.signal(chatMessageSignal, { turn: 2, userMessageId: 'u2', assistantMessageId: 'a2' });
      await until(async () => (await handle.query(changeReviewStateQuery)).followUps.length === 2);
      expect(await handle.query(changeReviewStateQuery)).toEqual({ phase: 'selecting', followUps: [2, 3] });
      expect(mocks.finishChatReply.calls).toEqual([]);
      release();
    });

    expect(result).toMatchObject({ verdict: 'Approved' });
    expect(mocks.finishChatReply.calls.map(([c]) => [c.assistantMessageId, c.text])).toEqual([
      ['a2', 'answer to turn 2'],
      ['a3', 'answer to turn 3'],
    ]);
  });

  it("cancelling the review's reply ends it CANCELLED; a cancelled waiting follow-up is not answered", async () => {
    // The model call runs until it is cancelled (it heartbeats, as the real one does, so the cancellation reaches it).
    const select = async () => {
      const ctx = Context.current();
      const beat = setInterval(() => ctx.heartbeat(), 100);
      try {
        await ctx.cancelled;
      } finally {
        clearInterval(beat);
      }
    };
    const mocks = activities({ select });
    const { result } = await runReview(mocks, async (handle) => {
      await until(async () => (await handle.query(changeReviewStateQuery)).phase === 'selecting');
      await handle.signal(chatMessageSignal, { turn: 2, userMessageId: 'u2', assistantMessageId: 'a2' });
      await handle.signal(cancelChatReplySignal, { assistantMessageId: 'a2' });
      await handle.signal(cancelChatReplySignal, { assistantMessageId: 'reply-1' });
    });

    expect(mocks.endChangeReview.calls).toEqual([
      [{ changeReviewId: 'review-1', assistantMessageId: 'reply-1', state: 'CANCELLED', reason: undefined }],
    ]);
    expect(mocks.finishChatReply.calls.map(([c]) => [c.assistantMessageId, c.status])).toEqual([['a2', 'CANCELLED']]);
    expect((result as WorkflowFailedError).cause).toMatchObject({
      type: failureTypes.changeReviewFailed,
      message: expect.stringContaining('was cancelled'),
    });
  });
});
