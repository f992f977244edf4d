// The dashboard's trends (issue 36): a plan's and a test's last runs, the project's LLM use per day and its open
// issues per kind, read by src/db/queries/trends.ts and counted by src/domain/trends.ts.
import {
  openIssueCounts,
  planPassCounts,
  planRunsForTrend,
  testRunsForTrend,
  type TestRunRow,
} from '../db/queries/trends.js';
import {
  everyDay,
  issuesByKind,
  planRunOutcome,
  testRunOutcome,
  trendOf,
  trendWindow,
  type Trend,
  type UsageDayPoint,
} from '../domain/trends.js';
import type { ServiceContext } from './context.js';
import { usageByDay } from './llm-usage.js';

const span = (start: Date | null, end: Date | null) =>
  start && end ? Math.max(0, end.getTime() - start.getTime()) : undefined;

/** A plan's trend over its last `trendWindow` runs. */
export async function planTrend({ db }: ServiceContext, projectId: string, planShortId: string): Promise<Trend> {
  const rows = await planRunsForTrend(db, projectId, planShortId, trendWindow);
  return trendOf(
    rows.map((r) => {
      const outcome = planRunOutcome(r.status, r.result, r.had_flaky);
      return {
        runShortId: r.short_id,
        at: r.started_at ?? r.created_at,
        outcome,
        durationMs: outcome === 'unfinished' ? undefined : span(r.started_at, r.finished_at),
      };
    }),
  );
}

/** Each plan's pass rate over its last runs, by plan short id (plans without a finished run left out). */
export async function planPassRates(
  { db }: ServiceContext,
  projectId: string,
): Promise<Map<string, { passRate: number; finished: number }>> {
  const rows = await planPassCounts(db, projectId, trendWindow);
  return new Map(
    rows
      .filter((r) => r.finished > 0)
      .map((r) => [r.plan_short_id, { passRate: r.passed / r.finished, finished: r.finished }]),
  );
}

const testPoint = (r: TestRunRow) => ({
  runShortId: r.run_short_id,
  at: r.started_at ?? r.finished_at!,
  outcome: testRunOutcome(r.status, r.result, r.flaky),
  durationMs: r.duration_ms ?? span(r.started_at, r.finished_at),
});

/** A test's trend over its last `trendWindow` finished executions. */
export async function testCaseTrend({ db }: ServiceContext, projectId: string, testCaseId: string): Promise<Trend> {
  return trendOf((await testRunsForTrend(db, projectId, testCaseId, trendWindow)).map(testPoint));
}

/** The project's open quality issues per kind, every kind listed. */
export async function openIssuesByKind({ db }: ServiceContext, projectId: string) {
  return issuesByKind(await openIssueCounts(db, projectId));
}

/** The project's LLM use over the last 30 UTC days, every day listed (a quiet one as zero), with the totals. */
export async function usageTrend(deps: ServiceContext, projectId: string, now = new Date()) {
  const usage = await usageByDay(deps, projectId, {}, now);
  const days: UsageDayPoint[] = usage.days.map((d) => ({
    date: d.date,
    tokens: d.promptTokens + d.completionTokens,
    costUsd: d.costUsd,
    calls: d.calls,
  }));
  return { ...usage, points: everyDay(usage.from, usage.to, days) };
}
