// The API reaches merge-request reviews only through this helper, with business ids.
import {
  mergeRequestEventSignal,
  type MergeRequestEvent,
  type MergeRequestReviewInput,
} from '../../workflows/merge-request-review-contract.js';
import { workflowIds } from '../../workflows/shared.js';
import { signalWithStart, type TemporalTarget } from './lifecycle.js';

/** Hands a webhook event to the merge request's review workflow, starting it when none runs. */
export async function signalMergeRequestReview(
  temporal: TemporalTarget,
  input: MergeRequestReviewInput,
  event: MergeRequestEvent,
): Promise<void> {
  const { provider, repository, number } = input.ref;
  await signalWithStart(temporal, 'mergeRequestReview', {
    workflowId: workflowIds.mergeRequestReview(provider, repository, number),
    summary: `Review of ${provider} ${repository} #${number}`,
    details:
      `Merge-request review of **${repository}** #${number} on ${provider}, driven by its webhooks. ` +
      'Query `mergeRequestReviewState` for the state, the head commit and what it waits for; each review is a `changeReview` child (`chat:<shortId>`).',
    attributes: { project: input.projectId, trigger: 'MERGE_REQUEST' },
    args: [input],
    signal: mergeRequestEventSignal,
    signalArgs: [event],
  });
}
