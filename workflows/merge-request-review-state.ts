import type { CancellationScope } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { MergeRequestRef } from '../src/domain/git.js';
import { missingDeployments } from '../src/domain/merge-requests.js';
import type {
  MergeRequestEvent,
  MergeRequestHead,
  MergeRequestReviewCarry,
  MergeRequestReviewState,
  MergeRequestTrigger,
} from './merge-request-review-contract.js';

/** Delivery ids remembered to drop a redelivered signal (the API dedupes too; this covers a resent signal). */
const rememberedDeliveries = 200;

type ReviewSettings = NonNullable<Awaited<ReturnType<Activities['loadMergeRequestReviewSettings']>>>;
type ViewPatch = Partial<MergeRequestReviewState>;

export interface RunningReview {
  sha: string;
  scope: CancellationScope;
}

/** What the merge request needs once its settings are read: a review on this trigger, or a state to show (and a waiting comment to post). */
export type ReviewStep =
  { start: MergeRequestTrigger } | { show: ViewPatch; waitingComment?: { waitingFor: string[]; handle: string } };

/**
 * One merge request as its `mergeRequestReview` workflow knows it: the head commit, its deployments, what triggered
 * or ended reviews, and the events not applied yet. The workflow's signal handler only calls `receive`; its loop
 * applies events and acts on `decide`. No method awaits or calls an activity, so each transition is plain code.
 */
export class TrackedMergeRequest {
  head: MergeRequestHead | null;
  closed: boolean;
  deployments: Record<string, string>;
  manual: MergeRequestTrigger | null;
  reviewedSha: string | null;
  waitingShownFor: string | null;
  reviews: number;
  readonly pending: MergeRequestEvent[];
  private readonly recent: string[];
  lastDelivery: MergeRequestTrigger | null = null;
  running: RunningReview | null = null;
  // Set when a review ends: the loop decides again (a newer head may be waiting for it to stop).
  reviewEnded = false;
  private readonly view: MergeRequestReviewState;

  constructor(ref: MergeRequestRef, carried: MergeRequestReviewCarry | undefined) {
    this.head = carried?.head ?? null;
    this.closed = carried?.closed ?? false;
    this.deployments = { ...carried?.deployments };
    this.manual = carried?.manual ?? null;
    this.reviewedSha = carried?.reviewedSha ?? null;
    this.waitingShownFor = carried?.waitingShownFor ?? null;
    this.reviews = carried?.reviews ?? 0;
    this.pending = [...(carried?.pending ?? [])];
    this.recent = [...(carried?.recentDeliveries ?? [])];
    this.view = {
      provider: ref.provider,
      repository: ref.repository,
      number: ref.number,
      state: 'starting',
      headSha: this.head?.sha ?? null,
      waitingFor: [],
      reviewChatShortId: null,
      lastVerdict: null,
      reviews: this.reviews,
    };
  }

  /** The signal handler: a redelivered event is dropped, any other waits for the loop. */
  receive(event: MergeRequestEvent): void {
    if (this.recent.includes(event.deliveryId)) return;
    this.recent.push(event.deliveryId);
    if (this.recent.length > rememberedDeliveries) this.recent.shift();
    this.pending.push(event);
  }

  state(): MergeRequestReviewState {
    return { ...this.view };
  }

  /** Updates what the state query answers; returns the line the Temporal UI shows as the workflow's details. */
  show(patch: ViewPatch): string {
    const view = Object.assign(this.view, patch, { headSha: this.head?.sha ?? null, reviews: this.reviews });
    return (
      `**${view.state}** · ${view.repository} #${view.number} · head ${view.headSha?.slice(0, 12) ?? 'unknown'}` +
      (view.waitingFor.length ? ` · waiting for ${view.waitingFor.join(', ')}` : '')
    );
  }

  /** Whether the loop has something to do: events, a review that ended, or (idle) closing or continuing as new. */
  hasWork(continueAsNewSuggested: () => boolean): boolean {
    return this.pending.length > 0 || this.reviewEnded || (!this.running && (this.closed || continueAsNewSuggested()));
  }

  /** A new head commit; true when it is another commit, whose deployments must then be read again. */
  moveHead(next: MergeRequestHead): boolean {
    const changed = this.head?.sha !== next.sha;
    this.head = next;
    if (changed) this.manual = null;
    return changed;
  }

  deployed(event: Extract<MergeRequestEvent, { type: 'deployment' }>): void {
    // GitLab names the deployed commit by its short sha.
    if (this.head?.sha.startsWith(event.sha))
      this.deployments = { ...this.deployments, [event.environment]: event.url };
  }

  /** The running review is for an older head, or the merge request closed: it must stop. */
  superseded(): boolean {
    return this.running !== null && (this.closed || this.head?.sha !== this.running.sha);
  }

  /** With the repository's settings (null: none), for the head when no review runs and the merge request is open. */
  decide(head: MergeRequestHead, settings: ReviewSettings | null): ReviewStep {
    if (!settings) return { show: { state: 'idle', waitingFor: ['review settings for this repository'] } };
    if (head.draft && !settings.includeDrafts)
      return { show: { state: 'skipped-draft', waitingFor: ['ready for review'] } };
    const missing = missingDeployments(settings.environments, this.deployments);
    const trigger =
      this.manual ??
      (settings.autoRun && missing.length === 0 && this.reviewedSha !== head.sha ? this.lastDelivery : null);
    if (trigger) return { start: trigger };
    if (this.reviewedSha === head.sha) return { show: { state: 'reviewed', waitingFor: [] } };
    const waitingFor = settings.autoRun
      ? [...missing, `or a comment mentioning ${settings.handle} with a URL`]
      : [`a comment mentioning ${settings.handle} with a URL`];
    const comment = settings.commentOnOpen && this.waitingShownFor !== head.sha;
    return {
      show: { state: 'waiting', waitingFor },
      ...(comment && { waitingComment: { waitingFor, handle: settings.handle } }),
    };
  }

  reviewStarted(run: RunningReview): void {
    this.manual = null;
    this.reviews++;
    this.running = run;
  }

  reviewFinished(run: RunningReview): void {
    // Reviewed or failed, this head is done for auto-run; a mention asks for it again.
    if (this.head?.sha === run.sha) this.reviewedSha = run.sha;
    this.running = null;
    this.reviewEnded = true;
  }

  carry(): MergeRequestReviewCarry {
    const { head, closed, deployments, manual, reviewedSha, waitingShownFor, pending, reviews } = this;
    return {
      head,
      closed,
      deployments,
      manual,
      reviewedSha,
      waitingShownFor,
      pending,
      recentDeliveries: this.recent,
      reviews,
    };
  }
}
