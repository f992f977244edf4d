// What a change on a Git hosting service (GitHub, GitLab) is, as values: the pull/merge request, its files, the
// verdict a review gives it. Types only, with no client behind them: the Temporal contracts (workflows/shared.ts),
// the database queries and the rules use them; src/git/provider.ts is the port that fetches and posts them.

export type GitProviderId = 'github' | 'gitlab';

/** A pull request (GitHub) or merge request (GitLab): `repository` is `owner/name` or the GitLab project path. */
export interface MergeRequestRef {
  provider: GitProviderId;
  repository: string;
  number: number;
}

export interface ChangedFile {
  path: string;
  /** The old path of a renamed file. */
  previousPath?: string;
  status: 'added' | 'modified' | 'removed' | 'renamed';
  additions: number;
  deletions: number;
  /** Binary files are named in a review, never sent to the model. */
  binary: boolean;
  /** The file's unified diff hunks; absent for binary files and for files the provider would not diff. */
  patch?: string;
}

export interface MergeRequestChange {
  ref: MergeRequestRef;
  /** The pull/merge request's web page. */
  url: string;
  title: string;
  description: string;
  author: string;
  sourceBranch: string;
  targetBranch: string;
  headSha: string;
  draft: boolean;
  state: 'open' | 'closed' | 'merged';
  files: ChangedFile[];
}

/** A change review's verdict, as QA.tech words it (and as GitHub's APPROVE / REQUEST_CHANGES / COMMENT map it). */
export type ReviewVerdict = 'Approved' | 'Changes Requested' | 'Comment';

export type CommitStatusState = 'pending' | 'success' | 'failure' | 'error';
