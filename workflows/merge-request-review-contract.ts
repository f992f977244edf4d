// The mergeRequestReview workflow's contract (workflows/mergeRequestReview.ts): one entity workflow per merge
// request (`mr:<provider>:<repo>:<number>`).
// Every webhook delivery about the merge request is a signal (signal-with-start); the workflow decides when a
// review runs (a `changeReview` child) and posts the comments through activities.
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { GitProviderId, MergeRequestRef, ReviewVerdict } from '../src/domain/git.js';

/** What a webhook delivery told about a merge request, already parsed and verified by the API. */
export type MergeRequestEvent =
  | {
      type: 'opened' | 'updated' | 'reopened' | 'ready_for_review' | 'converted_to_draft' | 'closed';
      deliveryId: string;
      head: MergeRequestHead;
    }
  /** A deployment of `sha` to `environment` succeeded and serves `url` (GitHub deployment_status, GitLab deployment). */
  | { type: 'deployment'; deliveryId: string; sha: string; environment: string; url: string }
  /** A comment mentioning the handle with a URL: a manual trigger, the URL being the deployment to test. */
  | { type: 'mention'; deliveryId: string; commentId: string; url: string; author: string; head?: MergeRequestHead };

export interface MergeRequestHead {
  sha: string;
  /** The merge request's web page (a change review in PR mode reads the change from it). */
  url: string;
  draft: boolean;
  sourceBranch: string;
  title: string;
}

export interface MergeRequestReviewInput {
  projectId: string;
  ref: MergeRequestRef;
  /** Set by the workflow itself when it continues as new. */
  carried?: MergeRequestReviewCarry;
}

/** What one run of the chain hands to the next: no review is running when it continues as new. */
export interface MergeRequestReviewCarry {
  head: MergeRequestHead | null;
  closed: boolean;
  deployments: Record<string, string>;
  manual: MergeRequestTrigger | null;
  /** The head commit whose review has completed (auto-run does not review it again). */
  reviewedSha: string | null;
  /** The head the waiting comment last described (null: none posted yet). */
  waitingShownFor: string | null;
  pending: MergeRequestEvent[];
  recentDeliveries: string[];
  reviews: number;
}

/** Why a review starts: the delivery that made it start keys its comments (each posted once). */
export interface MergeRequestTrigger {
  deliveryId: string;
  event: MergeRequestEvent['type'];
  /** A manual trigger's URL: the deployment under test for every mapped application. */
  url?: string;
  commentId?: string;
}

export interface MergeRequestReviewState {
  provider: GitProviderId;
  repository: string;
  number: number;
  state: 'starting' | 'waiting' | 'reviewing' | 'reviewed' | 'skipped-draft' | 'closed' | 'idle';
  headSha: string | null;
  /** Environments whose deployment of the head is awaited (or `a manual trigger`), while waiting. */
  waitingFor: string[];
  /** The change review's conversation once it is recorded, while reviewing and after (none while a new review starts). */
  reviewChatShortId: string | null;
  lastVerdict: ReviewVerdict | null;
  reviews: number;
}

export const mergeRequestEventSignal = defineSignal<[MergeRequestEvent]>('mergeRequestEvent');
export const mergeRequestReviewStateQuery = defineQuery<MergeRequestReviewState>('mergeRequestReviewState');
