// The workflow bundle of mergeRequestReview's test: the real workflow, with a stand-in for its child `changeReview`
// (which has its own tests). The stand-in waits until the test tells it the verdict (or to fail), so a test can push
// a new head while a review runs.
import { ApplicationFailure, condition, defineSignal, setHandler } from '@temporalio/workflow';
import type { ChangeReviewInput, ChangeReviewResult } from '../../../workflows/change-review-contract.js';

export { mergeRequestReview } from '../../../workflows/mergeRequestReview.js';

export const finishStubReview =
  defineSignal<[{ verdict: ChangeReviewResult['verdict'] } | { error: string }]>('finishStubReview');

export async function changeReview(input: ChangeReviewInput): Promise<ChangeReviewResult> {
  let outcome: { verdict: ChangeReviewResult['verdict'] } | { error: string } | undefined;
  setHandler(finishStubReview, (o) => void (outcome = o));
  await condition(() => outcome !== undefined);
  if (!outcome || 'error' in outcome) throw ApplicationFailure.nonRetryable(outcome?.error ?? 'no outcome');
  return {
    verdict: outcome.verdict,
    summary: `Reviewed in ${input.chatShortId}`,
    body: `**${outcome.verdict}**: reviewed in ${input.chatShortId}`,
    tests: [],
    url: `https://app.proctor.test/chat/${input.chatShortId}`,
    source: 'github',
  };
}
