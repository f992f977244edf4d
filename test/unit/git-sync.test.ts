import { describe, expect, it } from 'vitest';
import { syncDecision } from '../../src/domain/git-sync.js';

// The Git sync rule over every combination of three versions of a file (absent, or one of three texts), checked
// against what a user expects rather than a copy of the rule: a change made on one side only reaches the other;
// a change on both sides that differs is a conflict; nothing either side wrote is ever replaced by the other's.

const versions = [undefined, 'A', 'B', 'C'] as const;
const cases = versions.flatMap((base) =>
  versions.flatMap((ours) => versions.map((theirs) => ({ base, ours, theirs }))),
);

describe('git sync of one test file', () => {
  it.each(cases)('base $base, Proctor $ours, repository $theirs', ({ base, ours, theirs }) => {
    const decision = syncDecision(base, ours, theirs);
    const oursChanged = ours !== base;
    const theirsChanged = theirs !== base;

    if (ours === theirs) expect(decision.kind).toBe('in_sync');
    else if (oursChanged && theirsChanged) expect(decision.kind).toBe('conflict');
    else if (oursChanged) expect(decision).toEqual({ kind: 'open_pull_request', created: base === undefined });
    else if (theirs === undefined) expect(decision.kind).toBe('removed_in_repository');
    else expect(decision).toEqual({ kind: 'import', created: ours === undefined });

    // Never overwritten: Proctor's own change is not replaced by an import, the repository's not by a proposal.
    if (decision.kind === 'import') expect(oursChanged).toBe(false);
    if (decision.kind === 'open_pull_request') expect(theirsChanged).toBe(false);
    if (decision.kind === 'conflict') expect(decision.reason).toMatch(/both sides|Proctor|repository/);
  });

  it('covers every combination once', () => {
    expect(cases).toHaveLength(64);
    expect(new Set(cases.map((c) => syncDecision(c.base, c.ours, c.theirs).kind))).toEqual(
      new Set(['in_sync', 'open_pull_request', 'import', 'removed_in_repository', 'conflict']),
    );
  });
});
