// The boundary to a Git hosting service (GitHub, GitLab), as change reviews and merge-request reviews use it.
// One interface, two implementations over @octokit/* and @gitbeaker/rest; a provider's base URL is configurable
// (GitHub Enterprise, self-managed GitLab), which is also how tests point the real clients at local HTTP servers.
// The values it speaks in (a merge request's ref, its files, a verdict) are domain types: src/domain/git.ts.
import type {
  CommitStatusState,
  GitProviderId,
  MergeRequestChange,
  MergeRequestRef,
  ReviewVerdict,
} from '../domain/git.js';

export interface GitProviderClient {
  readonly provider: GitProviderId;
  fetchMergeRequest(ref: MergeRequestRef): Promise<MergeRequestChange>;
  /** A comment on the pull/merge request (GitHub issue comment, GitLab note). */
  createComment(ref: MergeRequestRef, body: string): Promise<{ id: string }>;
  /** Edits a comment this integration posted (a waiting comment is edited in place, not repeated). */
  updateComment(ref: MergeRequestRef, commentId: string, body: string): Promise<void>;
  /** GitHub: a native pull-request review on `headSha` (approve / request changes / comment). GitLab: a note. */
  postReview(
    ref: MergeRequestRef,
    review: { verdict: ReviewVerdict; body: string; headSha: string },
  ): Promise<{ id: string }>;
  /** A commit status on `sha` under `context` (GitLab: a commit status of the MR's project). */
  setCommitStatus(
    ref: MergeRequestRef,
    sha: string,
    status: { state: CommitStatusState; description: string; targetUrl?: string; context: string },
  ): Promise<void>;
  /** 👀 on the triggering comment, or on the pull/merge request itself when no comment is given. */
  addEyesReaction(ref: MergeRequestRef, commentId?: string): Promise<void>;
  /**
   * The id of a comment or review on the pull/merge request whose body contains `marker` (a hidden HTML comment
   * Proctor puts in what it posts), if there is one: what a retried post looks for before posting again.
   */
  findPosted(ref: MergeRequestRef, marker: string): Promise<string | undefined>;
  /** The web URL of an issue of `repository` (open or closed) whose body contains `marker`: one filed before. */
  findIssue(repository: string, marker: string): Promise<string | undefined>;
  /** Files an issue in `repository`; its web URL. */
  createIssue(repository: string, issue: { title: string; body: string }): Promise<{ url: string }>;
}
