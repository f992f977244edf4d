// Git sync of test-case files (issue 37 part 2), the rule alone: what to do with one test's file, given three
// versions of its text. `base` is the text both sides last agreed on (what Proctor last read from or merged into the
// repository's default branch), `ours` Proctor's current export, `theirs` the file at the default branch's head;
// undefined where there is none. The caller compares canonical texts (a file read and written again), so a
// reformatting in the repository is no change. Neither side is ever overwritten: a change on both sides that
// differs is a conflict to show, and a file removed from the repository is shown, not a test deleted.

export type SyncDecision =
  /** Both sides hold the same text (possibly both changed it alike): nothing to do but record it as the base. */
  | { kind: 'in_sync' }
  /** Only Proctor changed it (a burn-in, an accepted heal, an edit): propose `ours` in a pull/merge request. */
  | { kind: 'open_pull_request'; created: boolean }
  /** Only the repository changed it (a reviewed, merged edit): import `theirs`; `created` when it is new there. */
  | { kind: 'import'; created: boolean }
  /** The repository removed a file Proctor still has unchanged: shown for a person to decide, the test kept. */
  | { kind: 'removed_in_repository' }
  /** Both changed it, differently: shown with both texts; neither is written. */
  | { kind: 'conflict'; reason: string };

export function syncDecision(
  base: string | undefined,
  ours: string | undefined,
  theirs: string | undefined,
): SyncDecision {
  if (ours === theirs) return { kind: 'in_sync' };
  const oursChanged = ours !== base;
  const theirsChanged = theirs !== base;
  if (oursChanged && !theirsChanged) return { kind: 'open_pull_request', created: base === undefined };
  if (theirsChanged && !oursChanged) {
    if (theirs === undefined) return { kind: 'removed_in_repository' };
    return { kind: 'import', created: ours === undefined };
  }
  // Both changed (and differ, since ours !== theirs).
  if (base === undefined)
    return { kind: 'conflict', reason: 'the file was added on both sides with different contents' };
  if (theirs === undefined)
    return { kind: 'conflict', reason: 'the repository removed the file while Proctor changed the test' };
  if (ours === undefined)
    return { kind: 'conflict', reason: 'the test was deleted in Proctor while the repository changed the file' };
  return { kind: 'conflict', reason: 'the test changed in Proctor and in the repository since they last agreed' };
}
