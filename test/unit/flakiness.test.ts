import { describe, expect, it } from 'vitest';
import { flakeStats, isQuarantined, storedRuleRate, worthRetrying } from '../../src/domain/flakiness.js';
import { planRunResult, type Outcome, type RunNode } from '../../src/domain/run-plan.js';
import { failureKinds } from '../../src/domain/verdicts.js';

describe('flake rate and quarantine rule', () => {
  it('counts flaky runs over the last 20 finished runs; none: 0 over 0', () => {
    expect(flakeStats([])).toEqual({ recentRuns: 0, flakeRate: 0 });
    const runs = [
      ...Array.from({ length: 20 }, (_, i) => ({ flaky: i % 5 === 0 })),
      ...Array.from({ length: 10 }, () => ({ flaky: true })),
    ];
    expect(flakeStats(runs)).toEqual({ recentRuns: 20, flakeRate: 4 / 20 });
  });

  it('quarantines by the manual flag always, by the rule only at or above its rate over at least its runs', () => {
    // Every rate a window of 1..20 runs can have, against rules stored in single precision as the column keeps them.
    for (let runs = 1; runs <= 20; runs++) {
      for (let flaky = 0; flaky <= runs; flaky++) {
        const stats = { recentRuns: runs, flakeRate: flaky / runs };
        for (const rate of [0.05, 0.1, 0.25, 0.3, 1 / 3, 0.5, 1]) {
          const rule = { flakeRate: storedRuleRate(Math.fround(rate)), minRuns: 10 };
          const expected = runs >= 10 && flaky / runs >= storedRuleRate(rate);
          expect(isQuarantined(false, rule, stats), `${flaky}/${runs} vs ${rate}`).toBe(expected);
          expect(isQuarantined(true, rule, stats)).toBe(true);
        }
        expect(isQuarantined(false, null, stats)).toBe(false);
      }
    }
    // Exactly 30% reaches a 30% rule although 0.3 is stored as 0.30000001…
    expect(
      isQuarantined(
        false,
        { flakeRate: storedRuleRate(Math.fround(0.3)), minRuns: 10 },
        { recentRuns: 10, flakeRate: 3 / 10 },
      ),
    ).toBe(true);
  });

  it('retries every failure except a test that cannot run as defined', () => {
    for (const outcome of ['FAILED', 'ERROR'] as const) {
      for (const kind of [...failureKinds, undefined])
        expect(worthRetrying(outcome, kind), `${outcome} ${kind}`).toBe(kind !== 'test-definition');
    }
    expect(worthRetrying('PASSED', undefined)).toBe(false);
  });
});

describe('planRunResult with quarantined tests', () => {
  const node = (id: string, deps: Partial<RunNode> = {}): RunNode => ({ testCaseId: id, waitFor: [], ...deps });
  const result = (nodes: RunNode[], outcomes: Record<string, Outcome>) =>
    planRunResult(nodes, new Map(Object.entries(outcomes)));

  it('leaves out a quarantined test that did not pass and the tests skipped only because of it', () => {
    const nodes = [
      node('q', { quarantined: true }),
      node('dep', { resumeFrom: 'q' }),
      node('dep2', { waitFor: ['dep'] }),
      node('ok'),
    ];
    expect(result(nodes, { q: 'FAILED', dep: 'SKIPPED', dep2: 'SKIPPED', ok: 'PASSED' })).toBe('PASSED');
    expect(result(nodes, { q: 'ERROR', dep: 'SKIPPED', dep2: 'SKIPPED', ok: 'FAILED' })).toBe('FAILED');
    // A quarantined test that passed counts as any other.
    expect(result(nodes, { q: 'PASSED', dep: 'PASSED', dep2: 'FAILED', ok: 'PASSED' })).toBe('FAILED');
    // Every test left out: nothing that counts was verified.
    expect(result([node('q', { quarantined: true })], { q: 'FAILED' })).toBe('SKIPPED');
  });

  it('still fails for a skip that an unquarantined failure caused too', () => {
    const nodes = [node('q', { quarantined: true }), node('bad'), node('both', { waitFor: ['q', 'bad'] }), node('ok')];
    expect(result(nodes, { q: 'FAILED', bad: 'PASSED', both: 'SKIPPED', ok: 'PASSED' })).toBe('PASSED');
    expect(result(nodes, { q: 'FAILED', bad: 'FAILED', both: 'SKIPPED', ok: 'PASSED' })).toBe('FAILED');
  });

  it('without quarantined tests equals the plain rule', () => {
    const nodes = [node('a'), node('b', { waitFor: ['a'] })];
    expect(result(nodes, { a: 'FAILED', b: 'SKIPPED' })).toBe('FAILED');
    expect(result(nodes, { a: 'PASSED', b: 'PASSED' })).toBe('PASSED');
    expect(result(nodes, { a: 'CANCELLED', b: 'SKIPPED' })).toBe('FAILED');
  });
});
