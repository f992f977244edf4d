import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  everyDay,
  issuesByKind,
  planRunOutcome,
  testRunOutcome,
  trendOf,
  trendSentence,
  trendWindow,
  type TrendOutcome,
  type TrendRun,
} from '../../src/domain/trends.js';

const day = 86_400_000;
const t0 = Date.parse('2026-11-01T00:00:00Z');

/** `outcomes` oldest first, one run a day (or `gapDays` apart); returned newest first, as the queries read them. */
function history(outcomes: TrendOutcome[], gapDays = 1): TrendRun[] {
  return outcomes
    .map((outcome, i) => ({
      runShortId: `r${i}`,
      at: new Date(t0 + i * gapDays * day),
      outcome,
      durationMs: outcome === 'unfinished' || outcome === 'skipped' ? undefined : 1000 * (i + 1),
    }))
    .reverse();
}

const repeat = (o: TrendOutcome, n: number): TrendOutcome[] => Array.from({ length: n }, () => o);

describe('trends over the last runs', () => {
  // The matrix the issue names: each history, what the trend counts and the sentence a person reads.
  const cases: { name: string; outcomes: TrendOutcome[]; gap?: number; want: Record<string, unknown>; says: string }[] =
    [
      { name: 'no history', outcomes: [], want: { finished: 0, passRate: undefined }, says: 'no runs yet' },
      {
        name: 'one run',
        outcomes: ['passed'],
        want: { finished: 1, passRate: 1 },
        says: 'pass rate 100% over 1 run, flake rate 0%',
      },
      {
        name: 'all passes',
        outcomes: repeat('passed', 10),
        want: { finished: 10, passRate: 1, flakeRate: 0 },
        says: 'pass rate 100% over 10 runs, flake rate 0%',
      },
      {
        name: 'all failures',
        outcomes: repeat('failed', 4),
        want: { finished: 4, passRate: 0, failed: 4 },
        says: 'pass rate 0% over 4 runs, flake rate 0%',
      },
      {
        name: 'flaky retries count as passes and as flakes',
        outcomes: ['passed', 'flaky', 'passed', 'failed', 'flaky', 'passed', 'passed', 'passed', 'passed', 'passed'],
        want: { finished: 10, passed: 9, flaky: 2, passRate: 0.9, flakeRate: 0.2 },
        says: 'pass rate 90% over 10 runs, flake rate 20%',
      },
      {
        name: 'skipped and unfinished are drawn, not counted',
        outcomes: ['passed', 'skipped', 'failed', 'unfinished', 'passed'],
        want: { finished: 3, uncounted: 2, passRate: 2 / 3 },
        says: 'pass rate 67% over 3 runs, flake rate 0% (2 more skipped or unfinished)',
      },
      {
        name: 'only skipped',
        outcomes: repeat('skipped', 3),
        want: { finished: 0, passRate: undefined, flakeRate: undefined },
        says: 'no finished run among the last 3 runs',
      },
      {
        name: 'gaps of days change nothing',
        outcomes: ['passed', 'failed', 'passed', 'passed'],
        gap: 9,
        want: { finished: 4, passRate: 0.75 },
        says: 'pass rate 75% over 4 runs, flake rate 0%',
      },
      {
        name: 'a very long history is bounded to the last runs',
        outcomes: [...repeat('failed', 10_000), ...repeat('passed', trendWindow)],
        want: { finished: trendWindow, passRate: 1 },
        says: `pass rate 100% over ${trendWindow} runs, flake rate 0%`,
      },
    ];
  for (const c of cases)
    it(c.name, () => {
      const t = trendOf(history(c.outcomes, c.gap));
      expect(t).toMatchObject(c.want);
      expect(trendSentence(t)).toBe(c.says);
    });

  it('draws the last runs oldest first, bounded, with rates that match the counts (any history)', () => {
    const outcome = fc.constantFrom<TrendOutcome>('passed', 'flaky', 'failed', 'skipped', 'unfinished');
    fc.assert(
      fc.property(fc.array(outcome, { maxLength: 80 }), fc.integer({ min: 1, max: 40 }), (outcomes, window) => {
        const runs = history(outcomes);
        const t = trendOf(runs, window);
        const last = outcomes.slice(-window);
        expect(t.points.map((p) => p.outcome)).toEqual(last);
        expect(t.points.every((p, i) => i === 0 || p.at > t.points[i - 1]!.at)).toBe(true);
        const n = (o: TrendOutcome) => last.filter((x) => x === o).length;
        expect(t.finished).toBe(n('passed') + n('flaky') + n('failed'));
        expect(t.uncounted).toBe(n('skipped') + n('unfinished'));
        if (t.finished === 0) expect(t.passRate).toBeUndefined();
        else {
          expect(t.passRate).toBeCloseTo((n('passed') + n('flaky')) / t.finished);
          expect(t.flakeRate).toBeCloseTo(n('flaky') / t.finished);
        }
        // The median lies among the finished runs' durations.
        if (t.medianMs !== undefined) expect(t.medianMs).toBeLessThanOrEqual(t.longestMs!);
      }),
    );
  });

  it('reads a run from its row: an error is a failure, never nothing; a pass with a retry is flaky', () => {
    const matrix: [string, string | null, boolean, TrendOutcome, TrendOutcome][] = [
      // status, result, flaky, as a plan run, as a test run
      ['COMPLETED', 'PASSED', false, 'passed', 'passed'],
      ['COMPLETED', 'PASSED', true, 'flaky', 'flaky'],
      ['COMPLETED', 'FAILED', false, 'failed', 'failed'],
      ['COMPLETED', 'FAILED', true, 'failed', 'failed'],
      ['ERROR', null, false, 'failed', 'failed'],
      ['ERROR', 'PASSED', false, 'failed', 'failed'],
      ['COMPLETED', 'SKIPPED', false, 'skipped', 'skipped'],
      ['SKIPPED', null, false, 'unfinished', 'skipped'],
      ['CANCELLED', null, false, 'unfinished', 'unfinished'],
      ['RUNNING', null, false, 'unfinished', 'unfinished'],
      ['INITIATED', null, false, 'unfinished', 'unfinished'],
    ];
    for (const [status, result, flaky, plan, test] of matrix) {
      expect(planRunOutcome(status, result, flaky), `${status} ${result} ${flaky}`).toBe(plan);
      expect(testRunOutcome(status, result, flaky), `${status} ${result} ${flaky}`).toBe(test);
    }
  });
});

describe('usage per day and issues per kind', () => {
  it('lists every day of the range, a quiet one as zero', () => {
    const days = everyDay('2026-11-27', '2026-12-02', [
      { date: '2026-11-28', tokens: 500, costUsd: 0.01, calls: 2 },
      { date: '2026-12-01', tokens: 70, costUsd: undefined, calls: 1 },
    ]);
    expect(days.map((d) => [d.date, d.tokens])).toEqual([
      ['2026-11-27', 0],
      ['2026-11-28', 500],
      ['2026-11-29', 0],
      ['2026-11-30', 0],
      ['2026-12-01', 70],
      ['2026-12-02', 0],
    ]);
    expect(everyDay('2026-11-27', '2026-11-27', [])).toHaveLength(1);
  });

  it('lists every kind of issue, zero included', () => {
    expect(issuesByKind([{ kind: 'a11y', count: 3 }])).toEqual([
      { kind: 'console', count: 0 },
      { kind: 'exception', count: 0 },
      { kind: 'network', count: 0 },
      { kind: 'a11y', count: 3 },
    ]);
  });
});
