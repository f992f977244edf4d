// Trends (issue 36): how a plan or a test did over its last runs (pass rate, duration, flake rate), the project's
// LLM usage per day, its open quality issues per kind. Pure: the queries read rows, these rules count them, the
// dashboard draws what they return. Rates count what the flake rate counts (src/domain/flakiness.ts): runs with a
// result of passed or failed; a skipped, cancelled or unfinished run said nothing about the test.
import { flakeWindow } from './flakiness.js';
import { signalKinds, type SignalKind } from './quality.js';

/**
 * A trend reads at most this many of the latest runs: enough to see a change, few enough to draw as bars. The
 * flake rate's window, so the test page's flake rate and its trend's never disagree.
 */
export const trendWindow = flakeWindow;

/** What one run says in a trend. */
export type TrendOutcome = 'passed' | 'flaky' | 'failed' | 'skipped' | 'unfinished';

/** One run of a plan or a test, as read from its row. */
export interface TrendRun {
  /** The run's short id, for a link and a label. */
  runShortId: string;
  /** When it started (or, not started, was created). */
  at: Date;
  outcome: TrendOutcome;
  /** From start to end; undefined when it did not finish. */
  durationMs: number | undefined;
}

export interface Trend {
  /** Oldest first: the last `trendWindow` runs at most, as a chart reads them left to right. */
  points: TrendRun[];
  /** Runs that passed or failed (flaky ones passed): what the rates divide by. */
  finished: number;
  passed: number;
  flaky: number;
  failed: number;
  /** Skipped or unfinished: drawn, not counted. */
  uncounted: number;
  /** Passed (flaky ones too) over finished; undefined with no finished run. */
  passRate: number | undefined;
  /** Flaky over finished; undefined with no finished run. */
  flakeRate: number | undefined;
  /** The median duration of the finished runs. */
  medianMs: number | undefined;
  longestMs: number | undefined;
}

/**
 * A run of a plan as a trend reads it: its result when it has one (a run whose tests ended); an ERROR (Proctor or
 * the environment broke it) counts as a failure, never as nothing, so a trend cannot look better than the runs;
 * a passed run with a test that passed only on a retry is flaky.
 */
export function planRunOutcome(status: string, result: string | null, hadFlakyTest: boolean): TrendOutcome {
  if (status === 'ERROR' || result === 'FAILED') return 'failed';
  if (result === 'PASSED') return hadFlakyTest ? 'flaky' : 'passed';
  if (result === 'SKIPPED') return 'skipped';
  return 'unfinished';
}

/** One run of a test: its result, flaky when it passed on a retry; an ERROR of its execution is a failure. */
export function testRunOutcome(status: string, result: string | null, flaky: boolean): TrendOutcome {
  if (status === 'ERROR' || result === 'FAILED') return 'failed';
  if (result === 'PASSED') return flaky ? 'flaky' : 'passed';
  if (result === 'SKIPPED' || status === 'SKIPPED') return 'skipped';
  return 'unfinished';
}

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The trend of `runs` given newest first (as an index reads them), bounded to the last `window`. */
export function trendOf(runs: readonly TrendRun[], window = trendWindow): Trend {
  const points = runs.slice(0, window).reverse();
  const count = (o: TrendOutcome) => points.filter((p) => p.outcome === o).length;
  const [passed, flaky, failed] = [count('passed'), count('flaky'), count('failed')];
  const finished = passed + flaky + failed;
  const durations = points
    .filter((p) => p.outcome === 'passed' || p.outcome === 'flaky' || p.outcome === 'failed')
    .flatMap((p) => (p.durationMs === undefined ? [] : [p.durationMs]));
  return {
    points,
    finished,
    passed: passed + flaky,
    flaky,
    failed,
    uncounted: points.length - finished,
    passRate: finished ? (passed + flaky) / finished : undefined,
    flakeRate: finished ? flaky / finished : undefined,
    medianMs: median(durations),
    longestMs: durations.length ? Math.max(...durations) : undefined,
  };
}

/** A rate as people read it: whole percents, "no finished run" when there is none. */
export const percent = (rate: number | undefined): string =>
  rate === undefined ? 'no finished run' : `${Math.round(rate * 100)}%`;

const runs = (n: number) => `${n} run${n === 1 ? '' : 's'}`;

/** The trend in one sentence, e.g. "pass rate 80% over 10 runs, flake rate 10%". */
export function trendSentence(t: Trend): string {
  if (t.finished === 0)
    return t.points.length === 0 ? 'no runs yet' : `no finished run among the last ${runs(t.points.length)}`;
  const skipped = t.uncounted > 0 ? ` (${t.uncounted} more skipped or unfinished)` : '';
  return `pass rate ${percent(t.passRate)} over ${runs(t.finished)}, flake rate ${percent(t.flakeRate)}${skipped}`;
}

/** One UTC day of LLM use. */
export interface UsageDayPoint {
  date: string;
  tokens: number;
  costUsd: number | undefined;
  calls: number;
}

/**
 * The days from `from` to `to` (YYYY-MM-DD, UTC, both included), each with its usage, a day without calls as zero:
 * a chart of days must show the quiet ones, or two busy days three weeks apart look adjacent.
 */
export function everyDay(from: string, to: string, days: readonly UsageDayPoint[]): UsageDayPoint[] {
  const byDate = new Map(days.map((d) => [d.date, d]));
  const out: UsageDayPoint[] = [];
  const end = Date.parse(`${to}T00:00:00Z`);
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= end; t += 86_400_000) {
    const date = new Date(t).toISOString().slice(0, 10);
    out.push(byDate.get(date) ?? { date, tokens: 0, costUsd: undefined, calls: 0 });
  }
  return out;
}

/** Open issues per kind, every kind listed (zero included) in the order the issues page filters them. */
export function issuesByKind(
  counts: readonly { kind: string; count: number }[],
): { kind: SignalKind; count: number }[] {
  const byKind = new Map(counts.map((c) => [c.kind, c.count]));
  return signalKinds.map((kind) => ({ kind, count: byKind.get(kind) ?? 0 }));
}
