// The merge request the review tests follow (test/unit/merge-request-review-state.test.ts decides on it directly,
// test/workflows/mergeRequestReview.test.ts through signals): its head at a commit, and the review settings of
// its repository.
import type { ReviewDecisionSettings } from '../../src/services/merge-request-reviews.js';
import type { MergeRequestHead } from '../../workflows/merge-request-review-contract.js';

/** The head at the commit `sha` (padded to 40 characters), a draft or not. */
export const headAt = (sha: string, draft = false): MergeRequestHead => ({
  sha: sha.padEnd(40, '0'),
  url: 'https://github.test/acme/shop/pull/7',
  draft,
  sourceBranch: 'feature/cart',
  title: 'Cart badge',
});

/** Review on open, drafts skipped, ready once the `preview` environment deployed the head, called by @proctor. */
export const reviewSettings: ReviewDecisionSettings = {
  autoRun: true,
  includeDrafts: false,
  commentOnOpen: true,
  environments: ['preview'],
  handle: '@proctor',
};
