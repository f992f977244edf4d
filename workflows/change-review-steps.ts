import {
  ChildWorkflowCancellationType,
  executeChild,
  isCancellation,
  log,
  patched,
  proxyActivities,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { ReviewNewTest } from '../activities/change-review.js';
import { classifyChange, type ChangeReviewPhase } from '../src/domain/change-review.js';
import {
  chosenTestsLine,
  nothingRunReply,
  plural,
  reviewReply,
  unverifiableBody,
  type UncoveredPages,
} from '../src/domain/change-review-reply.js';
import { chatLlmActivity, dbActivity } from './activity-options.js';
import { burnIn } from './burnIn.js';
import { innermostMessage, reasonOf } from './errors.js';
import { planRun } from './planRun.js';
import { workflowIds } from './shared.js';
import { childAttributes } from './search-attributes.js';
import type { ChangeReviewInput, ChangeReviewResult, ChangeReviewTestResult } from './change-review-contract.js';

const db = proxyActivities<Activities>(dbActivity);
const llm = proxyActivities<Activities>(chatLlmActivity);
// The coverage map only informs the reply: a few attempts, then the review goes on without it.
const coverage = proxyActivities<Activities>({ ...dbActivity, retry: { ...dbActivity.retry, maximumAttempts: 3 } });

/**
 * The review itself, from reading the change to the verdict written on the reply: classify the change, let the model
 * choose affected tests and goals for missing ones, burn in the new tests (children), run them with the chosen ones
 * in one `planRun` child on the review's environments, and write the verdict from the results.
 */
export async function reviewChange(
  input: ChangeReviewInput,
  setPhase: (phase: ChangeReviewPhase) => void,
): Promise<ChangeReviewResult> {
  const { changeReviewId, assistantMessageId, projectId } = input;
  const lines: string[] = [];
  // Progress grows line by line on the PARTIAL reply: a poller sees where the review is.
  const progress = async (phase: ChangeReviewPhase, line: string) => {
    setPhase(phase);
    lines.push(line);
    await db.reviewProgress({ changeReviewId, assistantMessageId, phase, text: lines.join('\n') });
  };

  await progress('loading', 'Reading the change…');
  const change = await db.loadReviewChange({ changeReviewId });
  const base = { url: change.chatUrl, source: change.source };
  const finish = async (result: Omit<ChangeReviewResult, 'url' | 'source'>): Promise<ChangeReviewResult> => {
    await db.finishChangeReview({
      changeReviewId,
      assistantMessageId,
      verdict: result.verdict,
      summary: result.summary,
      tests: result.tests,
      body: result.body,
    });
    return { ...result, ...base };
  };

  const kind = classifyChange(change.paths);
  if (!kind.verifiable) {
    const { summary, body } = unverifiableBody(kind.reason ?? 'nothing to test');
    return finish({ verdict: 'Comment', summary, body, tests: [] });
  }

  await progress(
    'selecting',
    `Reviewing "${change.title}" (${plural(change.paths.length, 'file')}): choosing the tests it affects…`,
  );
  const selection = await llm.selectReviewTests({ changeReviewId });
  const chosen = chosenTestsLine(selection.existing);
  const notRun: ChangeReviewTestResult[] = [];
  const burnedIn: string[] = [];
  if (selection.newTests.length > 0) {
    await progress(
      'creating-tests',
      `${chosen} Creating ${plural(selection.newTests.length, 'new test')} where coverage is missing: ${selection.newTests.map((t) => `"${t.name}"`).join(', ')}…`,
    );
    const outcomes = await Promise.all(
      selection.newTests.map((test) => createAndBurnIn(changeReviewId, projectId, test)),
    );
    for (const { test, failureReason } of outcomes) {
      if (failureReason === undefined) burnedIn.push(test.id);
      else
        notRun.push({
          testCaseId: test.id,
          name: test.name,
          origin: 'new',
          result: 'NOT_RUN',
          detail: `could not be generated on the preview: ${failureReason}`,
          url: `${change.appUrl}/test-cases/${test.id}`,
        });
    }
  }

  const runnable = [...selection.existing.map((t) => t.id), ...burnedIn];
  let tests: ChangeReviewTestResult[] = [];
  let runShortId: string | undefined;
  if (runnable.length > 0) {
    await progress(
      'running',
      `${selection.newTests.length ? '' : `${chosen} `}Running ${plural(runnable.length, 'test')} on the preview…`,
    );
    const run = await db.createReviewRun({ changeReviewId, testCaseIds: runnable });
    runShortId = run.runShortId;
    try {
      await executeChild(planRun, {
        workflowId: workflowIds.planRun(run.runShortId),
        staticSummary: `Run ${run.runShortId} (change review ${input.chatShortId}): ${plural(runnable.length, 'test')}`,
        ...childAttributes({ run: run.runShortId, trigger: 'CHANGE_REVIEW' }),
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

  const uncovered = await uncoveredPages(changeReviewId);
  if (tests.length === 0) return finish({ ...nothingRunReply(selection.reasoning, uncovered), tests });

  await progress('verdict', 'Writing the verdict…');
  let draft: Awaited<ReturnType<typeof llm.writeReviewVerdict>>;
  let modelError: string | undefined;
  try {
    draft = await llm.writeReviewVerdict({ changeReviewId, reasoning: selection.reasoning, rows: tests });
  } catch (err) {
    if (isCancellation(err)) throw err;
    modelError = reasonOf(err);
  }
  const runUrl = runShortId && `${change.appUrl}/runs/${runShortId}`;
  return finish({
    ...reviewReply({ tests, draft, modelError, reasoning: selection.reasoning, runUrl, uncovered }),
    tests,
    runShortId,
  });
}

/**
 * The uncovered pages the change touches, for the reply. Histories recorded before reviews read the coverage map
 * finish without the activity (test/workflows/replay.test.ts). The map only informs: when it cannot be read, the
 * review says nothing of it rather than fail.
 */
async function uncoveredPages(changeReviewId: string): Promise<UncoveredPages[]> {
  if (!patched('review-uncovered-pages')) return [];
  try {
    return await coverage.reviewUncoveredPages({ changeReviewId });
  } catch (err) {
    if (isCancellation(err)) throw err;
    log.warn('uncovered pages not read', { changeReviewId, error: reasonOf(err) });
    return [];
  }
}

/**
 * Writes the new test (stable id) and burns it in as a child on the review's preview; a failed burn-in is a reason,
 * not a failure of the review.
 */
async function createAndBurnIn(
  changeReviewId: string,
  projectId: string,
  test: ReviewNewTest,
): Promise<{ test: ReviewNewTest; failureReason?: string }> {
  try {
    const created = await db.createReviewTestCase({ changeReviewId, projectId, test });
    const burned = await executeChild(burnIn, {
      workflowId: workflowIds.burnIn(created.id),
      staticSummary: `Burn-in: ${created.name} (change review)`,
      ...childAttributes({ testCase: created.id, trigger: 'CHANGE_REVIEW' }),
      args: [
        {
          projectId,
          testCaseId: created.id,
          ...(created.environmentUrl && { environmentUrl: created.environmentUrl }),
        },
      ],
    });
    return burned.status === 'COMPLETED' ? { test } : { test, failureReason: burned.failureReason ?? 'unknown reason' };
  } catch (err) {
    if (isCancellation(err)) throw err;
    return { test, failureReason: reasonOf(err) };
  }
}
