import type { ActivityDeps } from './deps.js';
import type { DeviceSettings } from '../src/db/queries/execution.js';
import type { Outcome, RunNode } from '../src/domain/run-plan.js';
import type { FailureEvidence, FailureKind, StepChange } from '../src/domain/verdicts.js';
import type { MobileBuildRef } from '../workflows/shared.js';

function passedTitle(healedSteps: number, attempts: number): string {
  const notes = [...(healedSteps ? [`healing ${healedSteps} step(s)`] : []), ...(attempts > 1 ? [`${attempts} attempts (flaky)`] : [])];
  return notes.length ? `Passed after ${notes.join(' and ')}` : 'Passed';
}

export interface RunPlanTest extends RunNode {
  runTestCaseId: string;
  baseUrl: string | null;
  build: MobileBuildRef | null;
  device: DeviceSettings | null;
  /** The project's `retries` when the plan was loaded: how often a failed test runs again. */
  retries: number;
}

/** Run bookkeeping: every write is an idempotent update of one row, so a retried activity records once. */
export function createRunActivities(deps: Pick<ActivityDeps, 'db' | 'blobs'>) {
  const { db, blobs } = deps;
  return {
    async markRunStarted(input: { runId: string }): Promise<void> {
      await db.updateTable('runs').set({ status: 'RUNNING', started_at: new Date() }).where('id', '=', input.runId).where('status', '=', 'INITIATED').execute();
    },

    /**
     * The run's tests in a stable order (name, then id), `limit` from `offset` when given: a run that continues
     * as new loads the same order again and finds its carried outcomes by position.
     */
    async loadRunPlan(input: { runId: string; offset?: number; limit?: number }): Promise<RunPlanTest[]> {
      let query = db
        .selectFrom('run_test_cases as r')
        .leftJoin('application_builds as b', 'b.id', 'r.application_build_id')
        .innerJoin('runs as run', 'run.id', 'r.run_id')
        .innerJoin('projects as p', 'p.id', 'run.project_id')
        .select(['r.id', 'r.test_case_id', 'r.name', 'r.environment_url', 'r.device', 'r.resume_from_test_case_id', 'r.wait_for_test_case_ids', 'r.status', 'r.quarantined'])
        .select(['b.short_id as build_short_id', 'b.platform as build_platform', 'p.test_retries'])
        .where('r.run_id', '=', input.runId)
        .where('r.test_case_id', 'is not', null)
        .orderBy('r.name')
        .orderBy('r.id');
      if (input.limit !== undefined) query = query.limit(input.limit).offset(input.offset ?? 0);
      const rows = await query.execute();
      const inRun = new Set(
        input.limit === undefined
          ? rows.map((r) => r.test_case_id!)
          : (await db.selectFrom('run_test_cases').select('test_case_id').where('run_id', '=', input.runId).where('test_case_id', 'is not', null).execute()).map((r) => r.test_case_id!),
      );
      return rows.map((r) => ({
        runTestCaseId: r.id,
        testCaseId: r.test_case_id!,
        name: r.name,
        baseUrl: r.environment_url,
        build: r.build_short_id && r.build_platform ? { shortId: r.build_short_id, platform: r.build_platform } : null,
        device: (r.device as DeviceSettings | null) ?? null,
        // Dependencies outside the run cannot gate it (the run includes them all; this guards deleted ones).
        resumeFrom: r.resume_from_test_case_id && inRun.has(r.resume_from_test_case_id) ? r.resume_from_test_case_id : null,
        waitFor: r.wait_for_test_case_ids.filter((id) => inRun.has(id)),
        retries: r.test_retries,
        // Decided when the run was written; only the flag that matters is sent, to keep the history small.
        ...(r.quarantined && { quarantined: true }),
      }));
    },

    async markTestStarted(input: { runTestCaseId: string }): Promise<void> {
      await db
        .updateTable('run_test_cases')
        .set({ status: 'RUNNING', started_at: new Date() })
        .where('id', '=', input.runTestCaseId)
        .where('status', 'in', ['PENDING', 'RUNNING'])
        .execute();
    },

    async recordTestResult(input: {
      runTestCaseId: string;
      outcome: Exclude<Outcome, 'SKIPPED' | 'CANCELLED'>;
      error?: string;
      failedStepIndex?: number;
      healed?: unknown[];
      screenshotKey?: string;
      traceKey?: string;
      durationMs?: number;
      changes?: StepChange[];
      failureKind?: FailureKind;
      evidence?: FailureEvidence;
      /** Executions of the test, retries included (1 when absent). */
      attempts?: number;
      /** PASSED on a retry. */
      flaky?: boolean;
    }): Promise<void> {
      const passed = input.outcome === 'PASSED';
      const attempts = input.attempts ?? 1;
      await db
        .updateTable('run_test_cases')
        .set({
          status: input.outcome === 'ERROR' ? 'ERROR' : 'COMPLETED',
          result: passed ? 'PASSED' : 'FAILED',
          result_title: passed ? passedTitle(input.healed?.length ?? 0, input.flaky ? attempts : 1) : (input.error?.slice(0, 200) ?? 'Failed'),
          error: input.error ?? null,
          failed_step_index: input.failedStepIndex ?? null,
          healed: input.healed?.length ? JSON.stringify(input.healed) : null,
          screenshot_key: input.screenshotKey ?? null,
          trace_key: input.traceKey ?? null,
          duration_ms: input.durationMs ?? null,
          changes: input.changes?.length ? JSON.stringify(input.changes) : null,
          failure_kind: passed ? null : (input.failureKind ?? null),
          evidence: !passed && input.evidence ? JSON.stringify(input.evidence) : null,
          attempts,
          flaky: passed && (input.flaky ?? false),
          finished_at: new Date(),
        })
        .where('id', '=', input.runTestCaseId)
        // Only a test still in flight: a retried write after a crash, or a late one after a cancel, changes nothing.
        .where('status', 'in', ['PENDING', 'RUNNING'])
        .execute();
    },

    async skipTests(input: { runId: string; skips: { testCaseId: string; reason: string }[] }): Promise<void> {
      for (const skip of input.skips) {
        await db
          .updateTable('run_test_cases')
          .set({ status: 'SKIPPED', result: 'SKIPPED', result_title: 'Skipped', error: skip.reason, finished_at: new Date() })
          .where('run_id', '=', input.runId)
          .where('test_case_id', '=', skip.testCaseId)
          .where('status', '=', 'PENDING')
          .execute();
      }
    },

    /** Resume-from browser states of a finished run (absent keys are fine: deleting is idempotent). */
    async deleteBrowserStates(input: { keys: string[] }): Promise<void> {
      for (const key of input.keys) await blobs.delete(key);
    },

    async finishRun(input: { runId: string; status: 'COMPLETED' | 'ERROR' | 'CANCELLED'; result: 'PASSED' | 'FAILED' | 'SKIPPED' | null; error?: string }): Promise<void> {
      await db.transaction().execute(async (trx) => {
        if (input.status !== 'COMPLETED') {
          await trx
            .updateTable('run_test_cases')
            .set({ status: input.status === 'CANCELLED' ? 'CANCELLED' : 'ERROR', finished_at: new Date(), error: input.status === 'CANCELLED' ? 'run cancelled' : (input.error ?? 'run failed') })
            .where('run_id', '=', input.runId)
            .where('status', 'in', ['PENDING', 'RUNNING'])
            .execute();
        }
        await trx
          .updateTable('runs')
          .set({ status: input.status, result: input.result, error: input.error ?? null, finished_at: new Date() })
          .where('id', '=', input.runId)
          .execute();
      });
    },
  };
}
