import {
  CancellationScope,
  ChildWorkflowCancellationType,
  executeChild,
  isCancellation,
  log,
  proxyActivities,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { MergeRequestRef } from '../src/domain/git.js';
import { dbActivity, gitActivity } from './activity-options.js';
import { changeReview } from './changeReview.js';
import { innermostMessage } from './errors.js';
import { workflowIds } from './shared.js';
import { childAttributes } from './search-attributes.js';
import type {
  MergeRequestHead,
  MergeRequestReviewState,
  MergeRequestTrigger,
} from './merge-request-review-contract.js';

const db = proxyActivities<Activities>(dbActivity);
// Calls to the Git provider: an outage delays a comment (retried for hours), it never loses one.
const git = proxyActivities<Activities>(gitActivity);

export interface HeadReview {
  projectId: string;
  ref: MergeRequestRef;
  head: MergeRequestHead;
  trigger: MergeRequestTrigger;
  deployments: Record<string, string>;
  /** Prefix of the idempotency keys of the review's comments, unique per triggering delivery. */
  key: string;
  /** The waiting comment to replace with the start comment, when one was posted. */
  waitingKey: string | undefined;
}

/**
 * One review of one head commit in `scope`: the review's row and start comment, a `changeReview` child, the verdict.
 * Cancelling the scope (a newer head, closing) stops it; the start comment's status is then ended as superseded.
 */
export function reviewHead(
  scope: CancellationScope,
  r: HeadReview,
  show: (patch: Partial<MergeRequestReviewState>) => void,
): Promise<void> {
  const { projectId, ref, head, trigger, key } = r;
  let announced = false;
  return scope
    .run(async () => {
      const begun = await db.beginMergeRequestReview({
        projectId,
        ref,
        head,
        trigger,
        deployments: r.deployments,
        idempotencyKey: key,
      });
      show({ reviewChatShortId: begun.review.chatShortId });
      await git.announceMergeRequestReview({
        projectId,
        ref,
        head,
        trigger,
        chatUrl: begun.url,
        key: `${key}:start`,
        waitingKey: r.waitingKey,
      });
      announced = true;
      const result = await executeChild(changeReview, {
        workflowId: workflowIds.chat(begun.review.chatShortId),
        staticSummary: `Change review of ${ref.repository} #${ref.number} at ${head.sha.slice(0, 12)}`,
        ...childAttributes({ trigger: 'MERGE_REQUEST' }),
        cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
        args: [begun.review],
      });
      await git.publishMergeRequestVerdict({ projectId, ref, headSha: head.sha, result, key: `${key}:verdict` });
      show({ lastVerdict: result.verdict });
    })
    .catch(async (err: unknown) => {
      const superseded = isCancellation(err);
      if (!superseded) log.warn('merge request review failed', { ref, error: innermostMessage(err) });
      // A pending commit status would hang forever on the old head; the outcome is said once, even when cancelled.
      if (announced || !superseded) {
        await CancellationScope.nonCancellable(() =>
          git.endMergeRequestReview({
            projectId,
            ref,
            headSha: head.sha,
            key: `${key}:end`,
            outcome: superseded ? 'superseded' : 'failed',
            reason: superseded ? undefined : innermostMessage(err),
          }),
        );
      }
    });
}
