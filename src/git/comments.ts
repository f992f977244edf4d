// What Proctor writes on a merge request, in one place (markdown: GitHub and GitLab render the same).
import type { ChangeReviewResult } from '../../workflows/change-review-contract.js';
import type { MergeRequestHead, MergeRequestTrigger } from '../../workflows/merge-request-review-contract.js';
import type { MergeRequestRef } from '../domain/git.js';

/** The commit status context Proctor reports under (pending while reviewing, then the verdict). */
export const commitStatusContext = 'proctor/review';

const eventWords: Record<MergeRequestTrigger['event'], string> = {
  opened: 'merge request opened',
  updated: 'new commits pushed',
  reopened: 'merge request reopened',
  ready_for_review: 'marked ready for review',
  converted_to_draft: 'converted to draft',
  closed: 'merge request closed',
  deployment: 'deployment ready',
  mention: 'manual trigger (comment)',
};

const short = (sha: string) => sha.slice(0, 12);

export function waitingComment(input: { head: MergeRequestHead; waitingFor: string[]; handle: string }): string {
  return [
    `**Proctor** will review this merge request once its preview is deployed.`,
    '',
    `Commit \`${short(input.head.sha)}\` on \`${input.head.sourceBranch}\`: waiting for ${input.waitingFor.join(', ')}.`,
    '',
    `To start now, comment \`${input.handle} <preview URL>\`: the URL is the deployment Proctor tests.`,
  ].join('\n');
}

export function startedComment(input: {
  projectName: string;
  ref: MergeRequestRef;
  head: MergeRequestHead;
  trigger: MergeRequestTrigger;
  chatUrl: string;
}): string {
  const { ref, head, trigger } = input;
  return [
    `**Proctor** is testing this merge request: [follow the review](${input.chatUrl}).`,
    '',
    `| Project | Merge request | Branch | Commit | Event |`,
    `|---|---|---|---|---|`,
    `| ${input.projectName} | #${ref.number} | \`${head.sourceBranch}\` | \`${short(head.sha)}\` | ${eventWords[trigger.event]} |`,
    ...(trigger.url ? ['', `Deployment under test: ${trigger.url}`] : []),
  ].join('\n');
}

/** The waiting comment, edited in place once the review has started (so it does not read as still waiting). */
export function waitingOverComment(input: { head: MergeRequestHead; chatUrl: string }): string {
  return `**Proctor** started reviewing commit \`${short(input.head.sha)}\`: [follow the review](${input.chatUrl}).`;
}

export function verdictBody(result: ChangeReviewResult): string {
  // The change review's reply already carries verdict, summary, results table and evaluation details.
  return `${result.body}\n\n[Open the review in Proctor](${result.url})`;
}

export function failedComment(input: { headSha: string; reason: string }): string {
  return `**Proctor** could not finish the review of commit \`${short(input.headSha)}\`: ${input.reason}\n\nComment with the handle and a preview URL to try again.`;
}

export const verdictStatus: Record<
  ChangeReviewResult['verdict'],
  { state: 'success' | 'failure'; description: string }
> = {
  Approved: { state: 'success', description: 'Proctor: Approved' },
  'Changes Requested': { state: 'failure', description: 'Proctor: Changes Requested' },
  Comment: { state: 'success', description: 'Proctor: Comment' },
};

/**
 * Put at the end of everything Proctor posts, under the post's key: invisible in the rendered comment, it lets a
 * retried post find the one a crashed attempt made (the provider took it; its id was never stored).
 */
export const postMarker = (key: string): string => `<!-- proctor:${key.replace(/-->/g, '')} -->`;

export const withMarker = (body: string, marker: string): string => `${body}\n\n${marker}`;
