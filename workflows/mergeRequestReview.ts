import {
  CancellationScope,
  ChildWorkflowCancellationType,
  allHandlersFinished,
  condition,
  continueAsNew,
  executeChild,
  isCancellation,
  log,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import { missingDeployments } from '../src/domain/merge-requests.js';
import { dbActivity, gitActivity } from './activity-options.js';
import { changeReview } from './changeReview.js';
import { innermostMessage } from './errors.js';
import {
  mergeRequestEventSignal,
  mergeRequestReviewStateQuery,
  workflowIds,
  type MergeRequestEvent,
  type MergeRequestHead,
  type MergeRequestReviewCarry,
  type MergeRequestReviewInput,
  type MergeRequestReviewState,
  type MergeRequestTrigger,
} from './shared.js';

type Activities = ReturnType<typeof createActivities>;
const db = proxyActivities<Activities>(dbActivity);
// Calls to the Git provider: an outage delays a comment (retried for hours), it never loses one.
const git = proxyActivities<Activities>(gitActivity);


/** A merge request nobody touches for this long ends; the next event starts it again under the same id. */
const idleTimeout = '30 days';
/** Delivery ids remembered to drop a redelivered signal (the API dedupes too; this covers a resent signal). */
const rememberedDeliveries = 200;

interface Running {
  sha: string;
  scope: CancellationScope;
}

/**
 * One merge request (`mr:<provider>:<repo>:<number>`): webhook events arrive as signals (handlers only enqueue);
 * the loop keeps the latest head commit and its deployments, and starts a `changeReview` child when the head is
 * ready (every mapped environment deployed) or a comment mentions the handle with a URL. A newer head cancels a
 * running review. Comments are posted by activities keyed by the triggering delivery, so each is posted once.
 */
export async function mergeRequestReview(input: MergeRequestReviewInput): Promise<void> {
  const { projectId, ref } = input;
  const carried = input.carried;
  let head: MergeRequestHead | null = carried?.head ?? null;
  let closed = carried?.closed ?? false;
  let deployments: Record<string, string> = { ...carried?.deployments };
  let manual: MergeRequestTrigger | null = carried?.manual ?? null;
  let reviewedSha = carried?.reviewedSha ?? null;
  let waitingShownFor = carried?.waitingShownFor ?? null;
  let reviews = carried?.reviews ?? 0;
  const pending: MergeRequestEvent[] = [...(carried?.pending ?? [])];
  const recent: string[] = [...(carried?.recentDeliveries ?? [])];
  let lastDelivery: MergeRequestTrigger | null = null;
  let running: Running | null = null;
  // Set when a review ends: the loop decides again (a newer head may be waiting for it to stop).
  let reviewEnded = false;

  const wfId = workflowInfo().workflowId;
  // One waiting comment per merge request's workflow chain, edited in place for each new head.
  const waitingKey = `${wfId}:waiting:${workflowInfo().firstExecutionRunId}`;
  const view: MergeRequestReviewState = {
    provider: ref.provider,
    repository: ref.repository,
    number: ref.number,
    state: 'starting',
    headSha: head?.sha ?? null,
    waitingFor: [],
    reviewChatShortId: null,
    lastVerdict: null,
    reviews,
  };
  const show = (patch: Partial<MergeRequestReviewState>) => {
    Object.assign(view, patch, { headSha: head?.sha ?? null, reviews });
    setCurrentDetails(`**${view.state}** · ${ref.repository} #${ref.number} · head ${view.headSha?.slice(0, 12) ?? 'unknown'}` + (view.waitingFor.length ? ` · waiting for ${view.waitingFor.join(', ')}` : ''));
  };

  setHandler(mergeRequestEventSignal, (event) => {
    if (recent.includes(event.deliveryId)) return;
    recent.push(event.deliveryId);
    if (recent.length > rememberedDeliveries) recent.shift();
    pending.push(event);
  });
  setHandler(mergeRequestReviewStateQuery, () => ({ ...view }));

  /** A new head commit: deployments start over from what the webhooks already stored for it. */
  async function moveHead(next: MergeRequestHead): Promise<void> {
    const changed = head?.sha !== next.sha;
    head = next;
    if (!changed) return;
    manual = null;
    deployments = await db.deploymentsForCommit({ ref, sha: next.sha });
  }

  async function apply(event: MergeRequestEvent): Promise<void> {
    switch (event.type) {
      case 'deployment':
        // GitLab names the deployed commit by its short sha.
        if (head?.sha.startsWith(event.sha)) deployments = { ...deployments, [event.environment]: event.url };
        break;
      case 'mention': {
        const current = event.head ?? (head ? null : await git.readMergeRequestHead({ projectId, ref }));
        if (current) await moveHead(current);
        manual = { deliveryId: event.deliveryId, event: 'mention', url: event.url, commentId: event.commentId };
        break;
      }
      default:
        await moveHead(event.head);
        closed = event.type === 'closed';
    }
    lastDelivery = { deliveryId: event.deliveryId, event: event.type };
  }

  function startReview(current: MergeRequestHead, trigger: MergeRequestTrigger, waitingShown: boolean): void {
    reviews++;
    const scope = new CancellationScope();
    const run: Running = { sha: current.sha, scope };
    running = run;
    const key = `${wfId}:${trigger.deliveryId}`;
    show({ state: 'reviewing', waitingFor: [] });
    let announced = false;
    void scope
      .run(async () => {
        const begun = await db.beginMergeRequestReview({ projectId, ref, head: current, trigger, deployments, idempotencyKey: key });
        show({ reviewChatShortId: begun.review.chatShortId });
        await git.announceMergeRequestReview({ projectId, ref, head: current, trigger, chatUrl: begun.url, key: `${key}:start`, waitingKey: waitingShown ? waitingKey : undefined });
        announced = true;
        const result = await executeChild(changeReview, {
          workflowId: workflowIds.chat(begun.review.chatShortId),
          staticSummary: `Change review of ${ref.repository} #${ref.number} at ${current.sha.slice(0, 12)}`,
          cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
          args: [begun.review],
        });
        await git.publishMergeRequestVerdict({ projectId, ref, headSha: current.sha, result, key: `${key}:verdict` });
        show({ lastVerdict: result.verdict });
      })
      .catch(async (err: unknown) => {
        const superseded = isCancellation(err);
        if (!superseded) log.warn('merge request review failed', { ref, error: innermostMessage(err) });
        // A pending commit status would hang forever on the old head; the outcome is said once, even when cancelled.
        if (announced || !superseded) {
          await CancellationScope.nonCancellable(() =>
            git.endMergeRequestReview({ projectId, ref, headSha: current.sha, key: `${key}:end`, outcome: superseded ? 'superseded' : 'failed', reason: superseded ? undefined : innermostMessage(err) }),
          );
        }
      })
      .finally(() => {
        // Reviewed or failed, this head is done for auto-run; a mention asks for it again.
        if (head?.sha === run.sha) reviewedSha = run.sha;
        running = null;
        reviewEnded = true;
      });
  }

  /** What the merge request needs now: a review, a waiting comment, or nothing. */
  async function decide(): Promise<void> {
    if (running) {
      if (closed || head?.sha !== running.sha) running.scope.cancel();
      show({ state: 'reviewing' });
      return;
    }
    if (closed) return show({ state: 'closed', waitingFor: [] });
    if (!head) return show({ state: 'idle', waitingFor: [] });
    const settings = await db.loadMergeRequestReviewSettings({ projectId, ref });
    if (!settings) return show({ state: 'idle', waitingFor: ['review settings for this repository'] });
    if (head.draft && !settings.includeDrafts) return show({ state: 'skipped-draft', waitingFor: ['ready for review'] });

    const missing = missingDeployments(settings.environments, deployments);
    const trigger = manual ?? (settings.autoRun && missing.length === 0 && reviewedSha !== head.sha ? lastDelivery : null);
    if (trigger) {
      manual = null;
      return startReview(head, trigger, waitingShownFor !== null);
    }
    if (reviewedSha === head.sha) return show({ state: 'reviewed', waitingFor: [] });
    const waitingFor = settings.autoRun ? [...missing, `or a comment mentioning ${settings.handle} with a URL`] : [`a comment mentioning ${settings.handle} with a URL`];
    show({ state: 'waiting', waitingFor });
    if (settings.commentOnOpen && waitingShownFor !== head.sha) {
      await git.postWaitingComment({ projectId, ref, head, waitingFor, handle: settings.handle, key: waitingKey });
      waitingShownFor = head.sha;
    }
  }

  show({});
  for (;;) {
    const woken = await condition(() => pending.length > 0 || reviewEnded || (!running && (closed || workflowInfo().continueAsNewSuggested)), idleTimeout);
    reviewEnded = false;
    if (!running && (closed || !woken || workflowInfo().continueAsNewSuggested)) {
      // Let a signal being handled land in `pending` before ending or carrying on.
      await condition(allHandlersFinished);
      if (pending.length === 0 && (closed || !woken)) return;
      if (workflowInfo().continueAsNewSuggested) {
        const carry: MergeRequestReviewCarry = { head, closed, deployments, manual, reviewedSha, waitingShownFor, pending, recentDeliveries: recent, reviews };
        return continueAsNew<typeof mergeRequestReview>({ projectId, ref, carried: carry });
      }
    }
    while (pending.length > 0) await apply(pending.shift()!);
    await decide();
  }
}
