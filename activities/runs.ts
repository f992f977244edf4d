import type { ActivityDeps } from './deps.js';
import type { DeviceSettings } from '../src/domain/device.js';
import {
  finishRun,
  markRunStarted,
  markTestStarted,
  planTestSettingRows,
  recordedTestOutcome,
  recordTestResult,
  runFailureKinds,
  runPlanRows,
  runTestCaseIds,
  skipTest,
  type TestResultWrite,
} from '../src/db/queries/run-progress.js';
import type { GraphNode } from '../src/domain/run-graph.js';
import type { QualitySignal } from '../src/domain/quality.js';
import type { FailureKind } from '../src/domain/verdicts.js';
import { recordRunSignals } from '../src/services/issue-ingest.js';
import type { MobileBuildRef, PlanTestSettings } from '../workflows/test-execution-contract.js';
import { createRunGraphActivities } from './run-graph.js';
import {
  runsFinished,
  runsStarted,
  testDuration,
  testsFinished,
  testsStarted,
  type RunResult,
} from '../src/metrics.js';

/** A finished run's metric label: its result when it completed, else how it ended. */
const runResult = (status: 'COMPLETED' | 'ERROR' | 'CANCELLED', result: string | null): RunResult =>
  status === 'COMPLETED'
    ? ((result?.toLowerCase() as RunResult | undefined) ?? 'none')
    : status === 'ERROR'
      ? 'error'
      : 'cancelled';

function passedTitle(healedSteps: number, attempts: number): string {
  const notes = [
    ...(healedSteps ? [`healing ${healedSteps} step(s)`] : []),
    ...(attempts > 1 ? [`${attempts} attempts (flaky)`] : []),
  ];
  return notes.length ? `Passed after ${notes.join(' and ')}` : 'Passed';
}

export interface RunPlanTest extends GraphNode {
  baseUrl: string | null;
  build: MobileBuildRef | null;
  device: DeviceSettings | null;
}

/** A row's URL, build and device, as a test of the run needs them. */
function settingsOf(r: {
  environment_url: string | null;
  device: unknown;
  build_short_id: string | null;
  build_platform: string | null;
}) {
  return {
    baseUrl: r.environment_url,
    build:
      r.build_short_id && r.build_platform
        ? ({ shortId: r.build_short_id, platform: r.build_platform } as MobileBuildRef)
        : null,
    device: (r.device as DeviceSettings | null) ?? null,
  };
}

/** Run bookkeeping (src/db/queries/run-progress.ts): every write is idempotent, so a retried activity records once. */
export function createRunActivities(deps: Pick<ActivityDeps, 'db' | 'blobs'>) {
  const { db, blobs } = deps;
  /**
   * The run's tests in a stable order (name, then id), `limit` from `offset` when given: a run that continues
   * as new loads the same order again and finds its carried outcomes by position.
   */
  const loadRunPlan = async (input: { runId: string; offset?: number; limit?: number }): Promise<RunPlanTest[]> => {
    const rows = await runPlanRows(
      db,
      input.runId,
      input.limit === undefined ? undefined : { offset: input.offset, limit: input.limit },
    );
    const inRun = new Set(
      input.limit === undefined ? rows.map((r) => r.test_case_id!) : await runTestCaseIds(db, input.runId),
    );
    return rows.map((r) => ({
      runTestCaseId: r.id,
      testCaseId: r.test_case_id!,
      name: r.name,
      ...settingsOf(r),
      // Dependencies outside the run cannot gate it (the run includes them all; this guards deleted ones).
      resumeFrom:
        r.resume_from_test_case_id && inRun.has(r.resume_from_test_case_id) ? r.resume_from_test_case_id : null,
      waitFor: r.wait_for_test_case_ids.filter((id) => inRun.has(id)),
      retries: r.test_retries,
      // Decided when the run was written; only the flag that matters is sent, to keep the history small.
      ...(r.quarantined && { quarantined: true }),
    }));
  };
  return {
    loadRunPlan,
    ...createRunGraphActivities({ loadRunPlan, blobs }),

    /** The URL, build and device of each of these tests of a run, in the order asked (a test that runs reads them). */
    async planTestSettings(input: { runTestCaseIds: string[] }): Promise<PlanTestSettings[]> {
      const rows = new Map((await planTestSettingRows(db, input.runTestCaseIds)).map((r) => [r.id, r]));
      return input.runTestCaseIds.map((id) => {
        const row = rows.get(id);
        if (!row) throw new Error(`run test ${id} not found`);
        return { runTestCaseId: id, ...settingsOf(row) };
      });
    },

    async markRunStarted(input: { runId: string }): Promise<void> {
      // Counted here, once per run whatever its trigger (the API, a schedule, a chat, a rerun).
      if (await markRunStarted(db, input.runId)) runsStarted.inc();
    },

    async markTestStarted(input: { runTestCaseId: string }): Promise<void> {
      if (await markTestStarted(db, input.runTestCaseId)) testsStarted.inc();
    },

    async recordedTestOutcome(input: {
      runTestCaseId: string;
    }): Promise<Awaited<ReturnType<typeof recordedTestOutcome>>> {
      return recordedTestOutcome(db, input.runTestCaseId);
    },

    /** `attempts`: executions of the test, retries included (1 when absent); `flaky`: PASSED on a retry. */
    async recordTestResult(
      input: { runTestCaseId: string; signals?: QualitySignal[] } & Omit<
        TestResultWrite,
        'resultTitle' | 'attempts' | 'flaky'
      > &
        Partial<Pick<TestResultWrite, 'attempts' | 'flaky'>>,
    ): Promise<void> {
      const { runTestCaseId, signals, ...result } = input;
      const attempts = input.attempts ?? 1;
      const resultTitle =
        input.outcome === 'PASSED'
          ? passedTitle(input.healed?.length ?? 0, input.flaky ? attempts : 1)
          : (input.error?.slice(0, 200) ?? 'Failed');
      if (
        await recordTestResult(db, runTestCaseId, { ...result, resultTitle, attempts, flaky: input.flaky ?? false })
      ) {
        const label = { result: input.outcome.toLowerCase() as 'passed' | 'failed' | 'error' };
        testsFinished.inc(label);
        if (input.durationMs !== undefined) testDuration.observe(label, input.durationMs / 1000);
      }
      // After the result: whether the test passed decides whether this run counts towards resolving issues.
      if (signals) await recordRunSignals(deps, { runTestCaseId, signals });
    },

    async skipTests(input: { runId: string; skips: { testCaseId: string; reason: string }[] }): Promise<void> {
      for (const skip of input.skips)
        if (await skipTest(db, input.runId, skip.testCaseId, skip.reason)) testsFinished.inc({ result: 'skipped' });
    },

    /** Resume-from browser states of a finished run (absent keys are fine: deleting is idempotent). */
    async deleteBrowserStates(input: { keys: string[] }): Promise<void> {
      for (const key of input.keys) await blobs.delete(key);
    },

    async finishRun(input: {
      runId: string;
      status: 'COMPLETED' | 'ERROR' | 'CANCELLED';
      result: 'PASSED' | 'FAILED' | 'SKIPPED' | null;
      error?: string;
    }): Promise<{ failureKinds: FailureKind[] }> {
      const { ended, testsEnded } = await finishRun(db, input);
      if (testsEnded > 0)
        testsFinished.inc({ result: input.status === 'CANCELLED' ? 'cancelled' : 'error' }, testsEnded);
      if (ended) runsFinished.inc({ result: runResult(input.status, input.result) });
      // For the run's `ProctorFailureKind` search attribute (workflows/planRun.ts): read after the end is written.
      return { failureKinds: await runFailureKinds(db, input.runId) };
    },
  };
}
