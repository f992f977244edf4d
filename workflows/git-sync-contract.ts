// The gitSync workflow's contract (workflows/gitSync.ts): one look at a test's file in the synced repository,
// either way. `propose`: Proctor changed the test, its file is proposed in a pull/merge request. `pull`: the
// default branch moved (a push), the folder is read at that commit and imported where only the repository changed.
import type { SyncDecision } from '../src/domain/git-sync.js';

export type GitSyncInput =
  { kind: 'propose'; projectId: string; testCaseId: string } | { kind: 'pull'; projectId: string; ref: string };

export interface ProposeResult {
  /** What syncDecision said, or why nothing was looked at. */
  outcome: SyncDecision['kind'] | 'not_configured' | 'no_steps';
  path?: string;
  pullRequestUrl?: string;
}

export interface PullResult {
  /** Paths imported as a new steps version (or a new test case). */
  imported: string[];
  conflicts: string[];
  removed: string[];
  /** Paths refused by validation (the reason is on the file's status). */
  invalid: string[];
  inSync: number;
}

export type GitSyncResult = ({ kind: 'propose' } & ProposeResult) | ({ kind: 'pull' } & PullResult);
