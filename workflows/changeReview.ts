import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowCancellationType,
  allHandlersFinished,
  condition,
  executeChild,
  isCancellation,
  log,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import type { ReviewNewTest, ReviewSelection } from '../activities/change-review.js';
import { chatLlmActivity, dbActivity } from './activity-options.js';
import { burnIn } from './burnIn.js';
import { ConversationTurns } from './conversation-turns.js';
import { innermostMessage } from './errors.js';
import { planRun } from './planRun.js';
import {
  cancelChatReplySignal,
  changeReviewStateQuery,
  chatMessageSignal,
  failureTypes,
  workflowIds,
  type ChangeReviewInput,
  type ChangeReviewResult,
  type ChangeReviewTestResult,
} from './shared.js';
import { classifyChange, enforceVerdict, overruledNote, reviewBody, summaryWithFacts, unverifiableBody, verdictFromResults } from '../src/domain/change-review.js';

type Activities = ReturnType<typeof createActivities>;
const db = proxyActivities<Activities>(dbActivity);
const llm = proxyActivities<Activities>(chatLlmActivity);

/**
 * A change review, as its conversation's workflow (`chat:<shortId>`): read the change, classify it, let the model
 * choose affected tests and goals for missing ones, create and burn in the new tests (children), run them with the
 * chosen existing ones in one `planRun` child on the review's environments, and end the reply with the verdict.
 * The reply stays PARTIAL with progress text until then (clients stop at the first COMPLETED message).
 *
 * Follow-up messages sent meanwhile arrive as `chatMessage` signals to the same id: they are queued and answered
 * in order (each a `chatTurn` child, as `chatConversation` does) after the verdict; once none is left the workflow
 * returns, and the next message starts a `chatConversation` under the id. The result is returned only then, so a
 * parent (merge-request review) gets it after the follow-ups queued during the review have been answered.
 */
export async function changeReview(input: ChangeReviewInput): Promise<ChangeReviewResult> {
  const turns = new ConversationTurns([], [1]);
  const followUps = turns.pending;
  const reviewScope = new CancellationScope();
  let phase = 'queued';

  setHandler(chatMessageSignal, (request) => turns.accept(request));
  setHandler(cancelChatReplySignal, ({ assistantMessageId }) => {
    if (assistantMessageId === input.assistantMessageId) reviewScope.cancel();
    else turns.cancel(assistantMessageId);
  });
  setHandler(changeReviewStateQuery, () => ({ phase, followUps: followUps.map((t) => t.turn) }));

  let result: ChangeReviewResult | undefined;
  let ended = '';
  try {
    result = await reviewScope.run(() => review(input, (p) => (phase = p)));
  } catch (err) {
    const cancelled = isCancellation(err);
    ended = cancelled ? 'was cancelled' : `failed: ${reasonOf(err)}`;
    if (!cancelled) log.warn('change review failed', { chat: input.chatShortId, error: reasonOf(err) });
    await CancellationScope.nonCancellable(() =>
      db.endChangeReview({ changeReviewId: input.changeReviewId, assistantMessageId: input.assistantMessageId, state: cancelled ? 'CANCELLED' : 'FAILED', reason: cancelled ? undefined : reasonOf(err) }),
    );
    // The whole workflow was cancelled (not only the review's reply): nothing more runs; waiting replies end too.
    if (cancelled && CancellationScope.current().consideredCancelled) {
      await CancellationScope.nonCancellable(() => Promise.all(followUps.map((t) => db.finishChatReply({ assistantMessageId: t.assistantMessageId, status: 'CANCELLED', toolsUsed: [] }))));
      throw err;
    }
  }
  phase = 'done';

  // Follow-ups, strictly in turn order; a signal still being handled lands in the queue before the check.
  for (;;) {
    await condition(allHandlersFinished);
    if ((await turns.answerNext(input)) === 'none') break;
  }

  if (!result) throw ApplicationFailure.create({ message: `change review ${input.chatShortId} ${ended}`, type: failureTypes.changeReviewFailed, nonRetryable: true });
  return result;
}

/** The activity's own message, not the wrapper's "Activity task failed". */
function reasonOf(err: unknown): string {
  return err instanceof ActivityFailure && err.cause ? err.cause.message : innermostMessage(err);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

async function review(input: ChangeReviewInput, setPhase: (phase: string) => void): Promise<ChangeReviewResult> {
  const { changeReviewId, assistantMessageId, projectId } = input;
  const lines: string[] = [];
  // Progress grows line by line on the PARTIAL reply: a poller sees where the review is.
  const progress = async (phase: string, line: string) => {
    setPhase(phase);
    lines.push(line);
    await db.reviewProgress({ changeReviewId, assistantMessageId, phase, text: lines.join('\n') });
  };

  await progress('loading', 'Reading the change…');
  const change = await db.loadReviewChange({ changeReviewId });
  const base = { url: change.chatUrl, source: change.source };
  const finish = async (result: Omit<ChangeReviewResult, 'url' | 'source'>): Promise<ChangeReviewResult> => {
    await db.finishChangeReview({ changeReviewId, assistantMessageId, verdict: result.verdict, summary: result.summary, tests: result.tests, body: result.body });
    return { ...result, ...base };
  };

  const kind = classifyChange(change.paths);
  if (!kind.verifiable) {
    const { summary, body } = unverifiableBody(kind.reason ?? 'nothing to test');
    return finish({ verdict: 'Comment', summary, body, tests: [] });
  }

  await progress('selecting', `Reviewing "${change.title}" (${plural(change.paths.length, 'file')}): choosing the tests it affects…`);
  const selection = await llm.selectReviewTests({ changeReviewId });
  const notRun: ChangeReviewTestResult[] = [];
  const burnedIn: string[] = [];
  if (selection.newTests.length > 0) {
    await progress('creating-tests', `${chosen(selection)} Creating ${plural(selection.newTests.length, 'new test')} where coverage is missing: ${selection.newTests.map((t) => `"${t.name}"`).join(', ')}…`);
    const outcomes = await Promise.all(selection.newTests.map((test) => createAndBurnIn(changeReviewId, projectId, test)));
    for (const { test, failureReason } of outcomes) {
      if (failureReason === undefined) burnedIn.push(test.id);
      else notRun.push({ testCaseId: test.id, name: test.name, origin: 'new', result: 'NOT_RUN', detail: `could not be generated on the preview: ${failureReason}`, url: `${change.appUrl}/test-cases/${test.id}` });
    }
  }

  const runnable = [...selection.existing.map((t) => t.id), ...burnedIn];
  let tests: ChangeReviewTestResult[] = [];
  let runShortId: string | undefined;
  if (runnable.length > 0) {
    await progress('running', `${selection.newTests.length ? '' : `${chosen(selection)} `}Running ${plural(runnable.length, 'test')} on the preview…`);
    const run = await db.createReviewRun({ changeReviewId, testCaseIds: runnable });
    runShortId = run.runShortId;
    try {
      await executeChild(planRun, {
        workflowId: workflowIds.planRun(run.runShortId),
        staticSummary: `Run ${run.runShortId} (change review ${input.chatShortId}): ${plural(runnable.length, 'test')}`,
        cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
        // No healing: a review checks the change as it is; a step healed past a changed page would hide what changed.
        args: [{ runId: run.runId, runShortId: run.runShortId, projectId, concurrency: run.concurrency, heal: false }],
      });
    } catch (err) {
      // The run's own rows say what did not finish (ERROR); the verdict is written from them.
      if (isCancellation(err)) throw err;
      log.warn('review run failed', { run: run.runShortId, error: innermostMessage(err) });
    }
    tests = await db.reviewRunResults({ projectId, runId: run.runId, newTestIds: burnedIn });
  }
  tests = [...tests, ...notRun];
  const runUrl = runShortId && `${change.appUrl}/runs/${runShortId}`;

  if (tests.length === 0) {
    const summary = `No existing test covers this change and no new test was needed, so nothing was run.${selection.reasoning ? ` ${selection.reasoning}` : ''}`;
    return finish({ verdict: 'Comment', summary, body: reviewBody({ verdict: 'Comment', summary, rows: [], details: selection.reasoning }), tests });
  }

  await progress('verdict', 'Writing the verdict…');
  let note: string | undefined;
  let draft: Awaited<ReturnType<typeof llm.writeReviewVerdict>>;
  try {
    draft = await llm.writeReviewVerdict({ changeReviewId, reasoning: selection.reasoning, rows: tests });
  } catch (err) {
    if (isCancellation(err)) throw err;
    note = `The model could not write the verdict (${reasonOf(err)}); it was decided from the results.`;
  }
  // The results (with the regressions the replay reported, leaving quarantined tests out) decide what the verdict
  // may be, whatever the model said; the summary says each regression and what no test covered, in plain words.
  const verdict = enforceVerdict(draft?.verdict ?? verdictFromResults(tests), tests);
  if (draft && verdict !== draft.verdict) note = overruledNote(draft.verdict, tests);
  const summary = summaryWithFacts(draft?.summary.trim() || `${plural(tests.filter((t) => t.result === 'PASSED').length, 'test')} passed of ${tests.length}.`, tests);
  const body = reviewBody({ verdict, summary, rows: tests, details: draft?.evaluationDetails ?? selection.reasoning, runUrl, note });
  return finish({ verdict, summary, body, tests, runShortId });
}

const chosen = (selection: ReviewSelection) =>
  selection.existing.length ? `Selected ${plural(selection.existing.length, 'existing test')}: ${selection.existing.map((t) => `"${t.name}"`).join(', ')}.` : 'No existing test covers the change.';

/**
 * Writes the new test (stable id) and burns it in as a child on the review's preview; a failed burn-in is a reason,
 * not a failure of the review.
 */
async function createAndBurnIn(changeReviewId: string, projectId: string, test: ReviewNewTest): Promise<{ test: ReviewNewTest; failureReason?: string }> {
  try {
    const created = await db.createReviewTestCase({ changeReviewId, projectId, test });
    const burned = await executeChild(burnIn, {
      workflowId: workflowIds.burnIn(created.id),
      staticSummary: `Burn-in: ${created.name} (change review)`,
      args: [{ projectId, testCaseId: created.id, ...(created.environmentUrl && { environmentUrl: created.environmentUrl }) }],
    });
    return burned.status === 'COMPLETED' ? { test } : { test, failureReason: burned.failureReason ?? 'unknown reason' };
  } catch (err) {
    if (isCancellation(err)) throw err;
    return { test, failureReason: reasonOf(err) };
  }
}
