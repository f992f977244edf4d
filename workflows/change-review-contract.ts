// The changeReview workflow's contract (workflows/changeReview.ts): a change review is a conversation of its own
// (`chat:<shortId>`), so follow-ups arrive as the chat's signals (workflows/chat-contract.ts).
// Started by POST /v1/chat/change-review and, as a child, by mergeRequestReview. The diff and the request's details
// live in the database (a diff may be megabytes); the workflow carries ids only.
import { defineQuery } from '@temporalio/workflow';
import type { QualityDelta } from '../src/domain/quality.js';
import type { GitProviderId, ReviewVerdict } from '../src/domain/git.js';
import type { ChangeReviewPhase } from '../src/domain/change-review.js';
import type { StepChange } from '../src/domain/verdicts.js';
import type { ReviewTestResult, VisualChangeFinding } from '../src/domain/review-visual.js';

export interface ChangeReviewInput {
  chatId: string;
  chatShortId: string;
  projectId: string;
  /** The change_reviews row holding mode, source, context, overrides and (raw mode) the diff. */
  changeReviewId: string;
  /** The assistant message that shows progress (PARTIAL) and then the verdict (COMPLETED). */
  assistantMessageId: string;
}

export interface ChangeReviewTestResult {
  testCaseId: string;
  name: string;
  origin: 'new' | 'existing';
  /**
   * A new test whose burn-in failed never ran: NOT_RUN with the reason in `detail`. VISUAL_CHANGE: its only
   * failures were visual checks that differ from their baselines (`visualChanges`): not a failed test.
   */
  result: ReviewTestResult;
  detail?: string;
  url: string;
  /** What its run reported changed on the elements its steps used; a regression forbids `Approved`. */
  changes?: StepChange[];
  /** Quarantined: it ran and reports, but fails nothing and verifies nothing. */
  quarantined?: boolean;
  /** Parts of its goal its burn-in could not verify: the review does not count them as tested. */
  notCovered?: string[];
  /** Its quality signals on the preview against its latest run on the base environment (absent: no baseline). */
  quality?: QualityDelta & { newCount: number; fixedCount: number };
  /** Its visual checks that differed from their baselines, with their images (a FAILED test may have some too). */
  visualChanges?: VisualChangeFinding[];
  /** The test case's dashboard page, where a proposed new baseline is accepted. */
  testUrl?: string;
}

export interface ChangeReviewResult {
  verdict: ReviewVerdict;
  summary: string;
  /** The assistant's reply (markdown): verdict, summary, results table, evaluation details. Also the MR note. */
  body: string;
  tests: ChangeReviewTestResult[];
  runShortId?: string;
  /** The conversation's dashboard URL. */
  url: string;
  source: 'api' | GitProviderId;
}

/** Where a review is and the follow-up turns waiting for it. */
export interface ChangeReviewState {
  phase: ChangeReviewPhase;
  followUps: number[];
}

export const changeReviewStateQuery = defineQuery<ChangeReviewState>('changeReviewState');
