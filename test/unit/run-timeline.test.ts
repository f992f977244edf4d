import { describe, expect, it } from 'vitest';
import { layoutRunTimeline, maxBars, type TimelineTest } from '../../src/domain/run-timeline.js';

// The run timeline's layout (issue 36): bars in time, arrows between dependent tests, the critical path as the
// chain of waits the run's end depended on, and a large run drawn per plan level.

const t0 = Date.parse('2026-11-28T08:00:00Z');
const at = (s: number) => new Date(t0 + s * 1000);

function test(id: string, from: number | null, to: number | null, extra: Partial<TimelineTest> = {}): TimelineTest {
  return {
    id,
    testCaseId: `tc-${id}`,
    name: id,
    status: 'COMPLETED',
    result: 'PASSED',
    startedAt: from === null ? null : at(from),
    finishedAt: to === null ? null : at(to),
    attempts: 1,
    flaky: false,
    dependsOn: [],
    ...extra,
  };
}

describe('run timeline', () => {
  it('places each test from its start to its end, draws arrows, marks the critical path and skipped dependents', () => {
    const tests = [
      test('login', 0, 3),
      test('cart', 3, 5, { dependsOn: ['tc-login'] }),
      test('search', 3, 12, { dependsOn: ['tc-login'] }),
      test('pay', 5, 7, { dependsOn: ['tc-cart'], status: 'COMPLETED', result: 'FAILED' }),
      test('receipt', null, 7, { dependsOn: ['tc-pay'], status: 'SKIPPED', result: 'SKIPPED' }),
      test('profile', 1, 4, { attempts: 2, flaky: true }),
      test('other project', null, null, { dependsOn: ['tc-nowhere'], status: 'PENDING', result: null }),
    ];
    const timeline = layoutRunTimeline(tests, t0 + 20_000);
    const bars = timeline.bars!;
    const bar = (id: string) => bars.find((b) => b.id === id)!;
    expect(timeline.span).toBe(12_000);
    expect(bar('cart')).toMatchObject({ from: 3000, to: 5000, kind: 'passed', level: 2 });
    expect(bar('pay')).toMatchObject({ kind: 'failed', level: 3 });
    expect(bar('receipt')).toMatchObject({ kind: 'skipped', from: 7000, to: 7000, level: 4 });
    expect(bar('profile')).toMatchObject({ kind: 'flaky', attempts: 2, level: 1 });
    // Waiting with nothing known yet: drawn at the end, not at zero.
    expect(bar('other project')).toMatchObject({ kind: 'waiting', from: 12_000, level: 1 });
    // The run ended when search did; search waited for login only.
    expect(timeline.critical.map((c) => c.name)).toEqual(['login', 'search']);
    expect(bars.filter((b) => b.critical).map((b) => b.id)).toEqual(['login', 'search']);
    const arrows = timeline.edges.map((e) => `${bars[e.from]!.id}->${bars[e.to]!.id}${e.critical ? '*' : ''}`);
    expect(arrows.sort()).toEqual(['cart->pay', 'login->cart', 'login->search*', 'pay->receipt']);
    expect(timeline.levels.map((l) => [l.level, l.count])).toEqual([
      [1, 3],
      [2, 2],
      [3, 1],
      [4, 1],
    ]);
  });

  it('ends a running test at now, and never draws a bar backwards', () => {
    const timeline = layoutRunTimeline(
      [test('a', 0, 2), test('b', 1, null, { status: 'RUNNING', result: null }), test('c', 5, 4)],
      t0 + 9_000,
    );
    const b = timeline.bars!;
    expect(b.find((x) => x.id === 'b')).toMatchObject({ kind: 'running', from: 1000, to: 9000 });
    expect(b.find((x) => x.id === 'c')).toMatchObject({ from: 5000, to: 5000 });
    expect(timeline.span).toBe(9000);
  });

  it.each([maxBars, maxBars + 1, 10_000])('draws %i tests as bars only up to the limit, else per level', (n) => {
    // Chains of 10: each test waits for the one before it in its chain; every 97th fails, what follows it is skipped.
    const tests: TimelineTest[] = [];
    for (let i = 0; i < n; i++) {
      const failedBefore = tests[i - 1] && i % 10 !== 0 && tests[i - 1]!.result !== 'PASSED';
      tests.push(
        test(`t${i}`, i % 10, (i % 10) + 1, {
          dependsOn: i % 10 === 0 ? [] : [`tc-t${i - 1}`],
          ...(failedBefore
            ? { status: 'SKIPPED', result: 'SKIPPED', startedAt: null }
            : i % 97 === 5
              ? { result: 'FAILED' }
              : {}),
        }),
      );
    }
    const timeline = layoutRunTimeline(tests, t0);
    expect(timeline.bars?.length).toBe(n <= maxBars ? n : undefined);
    expect(timeline.levels).toHaveLength(10);
    expect(timeline.levels.reduce((sum, l) => sum + l.count, 0)).toBe(n);
    const kinds = (k: 'failed' | 'skipped') =>
      tests.filter((x) => x.result === (k === 'failed' ? 'FAILED' : 'SKIPPED'));
    expect(timeline.levels.reduce((sum, l) => sum + l.counts.failed, 0)).toBe(kinds('failed').length);
    expect(timeline.levels.reduce((sum, l) => sum + l.counts.skipped, 0)).toBe(kinds('skipped').length);
    expect(timeline.critical).toHaveLength(10);
  });
});
