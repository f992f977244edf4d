// A plan run as a picture (issue 36): where each test's bar lies in time, which tests waited on which, and the
// critical path, the chain of waits the run's end depended on. Pure: the run page draws what this decides.
import { topologicalOrder } from './dag.js';

/** What a bar says about its test; each is drawn with its own fill pattern and word, not only a colour. */
export type TimelineKind = 'passed' | 'flaky' | 'failed' | 'skipped' | 'running' | 'waiting' | 'cancelled';
export const timelineKinds: readonly TimelineKind[] = [
  'passed',
  'flaky',
  'failed',
  'skipped',
  'running',
  'waiting',
  'cancelled',
];

export interface TimelineTest {
  id: string;
  testCaseId: string | null;
  name: string;
  status: string;
  result: string | null;
  startedAt: Date | string | null;
  finishedAt: Date | string | null;
  attempts: number;
  flaky: boolean;
  /** The test cases it waits for or resumes from (those of them in the run are drawn as arrows). */
  dependsOn: readonly string[];
}

export interface TimelineBar {
  id: string;
  name: string;
  kind: TimelineKind;
  /** Milliseconds from the run's first start. A skipped or waiting test has from === to: a marker, not a span. */
  from: number;
  to: number;
  attempts: number;
  /** 1 for a test that waits on nothing in the run, else one more than the deepest test it waits on. */
  level: number;
  critical: boolean;
}

export interface TimelineLevel {
  level: number;
  count: number;
  from: number;
  to: number;
  counts: Record<TimelineKind, number>;
}

export interface RunTimeline {
  /** Epoch milliseconds of the first start (or the first time known). */
  origin: number;
  span: number;
  /** One per test, in time order: only when the run is small enough to draw each. */
  bars: TimelineBar[] | undefined;
  /** Dependency arrows between bars (indexes into `bars`). */
  edges: { from: number; to: number; critical: boolean }[];
  /** Per plan level, always: what a large run is drawn as. */
  levels: TimelineLevel[];
  /** The tests of the critical path, first to last. */
  critical: { id: string; name: string; kind: TimelineKind }[];
}

/** Above this many tests a run is drawn by plan level: a page must never hold thousands of bars. */
export const maxBars = 400;

export function kindOf(t: Pick<TimelineTest, 'status' | 'result' | 'flaky'>): TimelineKind {
  if (t.status === 'SKIPPED' || (t.result === 'SKIPPED' && t.status !== 'PENDING')) return 'skipped';
  if (t.status === 'CANCELLED') return 'cancelled';
  if (t.status === 'ERROR' || t.result === 'FAILED') return 'failed';
  if (t.result === 'PASSED') return t.flaky ? 'flaky' : 'passed';
  return t.status === 'RUNNING' ? 'running' : 'waiting';
}

const time = (at: Date | string | null): number | undefined => (at === null ? undefined : new Date(at).getTime());

/** Plan levels: a test on level n waits (directly or not) on a test of level n - 1 in this run. */
function levelsOf(tests: readonly TimelineTest[], byCase: Map<string, TimelineTest>): Map<string, number> {
  const edges = new Map(tests.map((t) => [t.id, depsInRun(t, byCase).map((d) => d.id)]));
  const level = new Map<string, number>();
  let order: string[];
  try {
    order = topologicalOrder(edges);
  } catch {
    order = tests.map((t) => t.id); // A cycle cannot be stored; if one were, every test is drawn on level 1.
  }
  for (const id of order) level.set(id, 1 + Math.max(0, ...(edges.get(id) ?? []).map((d) => level.get(d) ?? 0)));
  return level;
}

function depsInRun(t: TimelineTest, byCase: Map<string, TimelineTest>): TimelineTest[] {
  return t.dependsOn.flatMap((c) => {
    const dep = byCase.get(c);
    return dep && dep.id !== t.id ? [dep] : [];
  });
}

/**
 * The run laid out in time. `now` ends a running test's bar. The critical path starts at the test that ended last
 * and walks back, each time to the dependency that ended last: the wait that held its start.
 */
export function layoutRunTimeline(tests: readonly TimelineTest[], now: number): RunTimeline {
  const byCase = new Map(tests.flatMap((t) => (t.testCaseId ? [[t.testCaseId, t] as const] : [])));
  const starts = tests.flatMap((t) => [time(t.startedAt) ?? time(t.finishedAt) ?? []].flat());
  const origin = starts.length > 0 ? Math.min(...starts) : now;
  const spans = new Map(
    tests.map((t) => {
      const kind = kindOf(t);
      const start = time(t.startedAt);
      const end = time(t.finishedAt) ?? (kind === 'running' ? now : undefined);
      const at = start ?? end;
      const from = at === undefined ? undefined : at - origin;
      const to = end === undefined ? from : end - origin;
      return [t.id, { kind, from, to: to !== undefined && from !== undefined ? Math.max(from, to) : to }] as const;
    }),
  );
  const ends = [...spans.values()].flatMap((s) => (s.to === undefined ? [] : [s.to]));
  const span = Math.max(1, ...ends);
  const level = levelsOf(tests, byCase);
  const placed = (id: string) => {
    const s = spans.get(id)!;
    return { kind: s.kind, from: s.from ?? span, to: s.to ?? span };
  };

  const critical: TimelineTest[] = [];
  let last = tests
    .filter((t) => spans.get(t.id)!.kind !== 'skipped')
    .sort((a, b) => placed(b.id).to - placed(a.id).to)[0];
  const onPath = new Set<string>();
  while (last && !onPath.has(last.id)) {
    critical.unshift(last);
    onPath.add(last.id);
    last = depsInRun(last, byCase).sort((a, b) => placed(b.id).to - placed(a.id).to)[0];
  }

  const levels = new Map<number, TimelineLevel>();
  for (const t of tests) {
    const n = level.get(t.id) ?? 1;
    const p = placed(t.id);
    const row = levels.get(n) ?? { level: n, count: 0, from: p.from, to: p.to, counts: emptyCounts() };
    row.count++;
    row.from = Math.min(row.from, p.from);
    row.to = Math.max(row.to, p.to);
    row.counts[p.kind]++;
    levels.set(n, row);
  }

  let bars: TimelineBar[] | undefined;
  const edges: RunTimeline['edges'] = [];
  if (tests.length <= maxBars) {
    bars = tests
      .map((t) => ({ id: t.id, name: t.name, ...placed(t.id), attempts: t.attempts, level: level.get(t.id) ?? 1 }))
      .map((b) => ({ ...b, critical: onPath.has(b.id) }))
      .sort((a, b) => a.from - b.from || a.level - b.level || a.name.localeCompare(b.name));
    const index = new Map(bars.map((b, i) => [b.id, i]));
    for (const t of tests)
      for (const dep of depsInRun(t, byCase))
        edges.push({
          from: index.get(dep.id)!,
          to: index.get(t.id)!,
          critical: onPath.has(t.id) && onPath.has(dep.id),
        });
  }
  return {
    origin,
    span,
    bars,
    edges,
    levels: [...levels.values()].sort((a, b) => a.level - b.level),
    critical: critical.map((t) => ({ id: t.id, name: t.name, kind: placed(t.id).kind })),
  };
}

function emptyCounts(): Record<TimelineKind, number> {
  return Object.fromEntries(timelineKinds.map((k) => [k, 0])) as Record<TimelineKind, number>;
}
