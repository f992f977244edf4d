import {
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { dbActivity, gitActivity } from './activity-options.js';
import { reviewHead } from './merge-request-review-run.js';
import { TrackedMergeRequest } from './merge-request-review-state.js';
import {
  mergeRequestEventSignal,
  mergeRequestReviewStateQuery,
  type MergeRequestEvent,
  type MergeRequestHead,
  type MergeRequestReviewInput,
  type MergeRequestReviewState,
  type MergeRequestTrigger,
} from './merge-request-review-contract.js';

const db = proxyActivities<Activities>(dbActivity);
// Calls to the Git provider: an outage delays a comment (retried for hours), it never loses one.
const git = proxyActivities<Activities>(gitActivity);

/** A merge request nobody touches for this long ends; the next event starts it again under the same id. */
const idleTimeout = '30 days';

/**
 * One merge request (`mr:<provider>:<repo>:<number>`): webhook events arrive as signals (handlers only enqueue);
 * the loop keeps the latest head commit and its deployments, and starts a `changeReview` child when the head is
 * ready (every mapped environment deployed) or a comment mentions the handle with a URL. A newer head cancels a
 * running review. Comments are posted by activities keyed by the triggering delivery, so each is posted once.
 */
export async function mergeRequestReview(input: MergeRequestReviewInput): Promise<void> {
  const { projectId, ref } = input;
  const mr = new TrackedMergeRequest(ref, input.carried);
  const wfId = workflowInfo().workflowId;
  // One waiting comment per merge request's workflow chain, edited in place for each new head.
  const waitingKey = `${wfId}:waiting:${workflowInfo().firstExecutionRunId}`;
  const show = (patch: Partial<MergeRequestReviewState>) => setCurrentDetails(mr.show(patch));

  setHandler(mergeRequestEventSignal, (event) => mr.receive(event));
  setHandler(mergeRequestReviewStateQuery, () => mr.state());

  /** A new head commit: deployments start over from what the webhooks already stored for it. */
  async function moveHead(next: MergeRequestHead): Promise<void> {
    if (mr.moveHead(next)) mr.deployments = await db.deploymentsForCommit({ ref, sha: next.sha });
  }

  async function apply(event: MergeRequestEvent): Promise<void> {
    switch (event.type) {
      case 'deployment':
        mr.deployed(event);
        break;
      case 'mention': {
        const current = event.head ?? (mr.head ? null : await git.readMergeRequestHead({ projectId, ref }));
        if (current) await moveHead(current);
        mr.manual = { deliveryId: event.deliveryId, event: 'mention', url: event.url, commentId: event.commentId };
        break;
      }
      default:
        await moveHead(event.head);
        mr.closed = event.type === 'closed';
    }
    mr.lastDelivery = { deliveryId: event.deliveryId, event: event.type };
  }

  function startReview(head: MergeRequestHead, trigger: MergeRequestTrigger, waitingShown: boolean): void {
    const run = { sha: head.sha, scope: new CancellationScope() };
    mr.reviewStarted(run);
    // No conversation until this review's is recorded: the previous review's (superseded, cancelled) is not this one.
    show({ state: 'reviewing', waitingFor: [], reviewChatShortId: null });
    const review = {
      projectId,
      ref,
      head,
      trigger,
      deployments: mr.deployments,
      key: `${wfId}:${trigger.deliveryId}`,
      waitingKey: waitingShown ? waitingKey : undefined,
    };
    void reviewHead(run.scope, review, show).finally(() => mr.reviewFinished(run));
  }

  /** What the merge request needs now: a review, a waiting comment, or nothing. */
  async function decide(): Promise<void> {
    if (mr.running) {
      if (mr.superseded()) mr.running.scope.cancel();
      show({ state: 'reviewing' });
      return;
    }
    if (mr.closed) return show({ state: 'closed', waitingFor: [] });
    const head = mr.head;
    if (!head) return show({ state: 'idle', waitingFor: [] });
    const step = mr.decide(head, await db.loadMergeRequestReviewSettings({ projectId, ref }));
    if ('start' in step) return startReview(head, step.start, mr.waitingShownFor !== null);
    show(step.show);
    if (step.waitingComment) {
      await git.postWaitingComment({ projectId, ref, head, ...step.waitingComment, key: waitingKey });
      mr.waitingShownFor = head.sha;
    }
  }

  show({});
  for (;;) {
    const woken = await condition(() => mr.hasWork(() => workflowInfo().continueAsNewSuggested), idleTimeout);
    mr.reviewEnded = false;
    if (!mr.running && (mr.closed || !woken || workflowInfo().continueAsNewSuggested)) {
      // Let a signal being handled land in `pending` before ending or carrying on.
      await condition(allHandlersFinished);
      if (mr.pending.length === 0 && (mr.closed || !woken)) return;
      if (workflowInfo().continueAsNewSuggested)
        return continueAsNew<typeof mergeRequestReview>({ projectId, ref, carried: mr.carry() });
    }
    while (mr.pending.length > 0) await apply(mr.pending.shift()!);
    await decide();
  }
}
