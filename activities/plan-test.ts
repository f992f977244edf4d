import { setTimeout as delay } from 'node:timers/promises';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { worthRetrying } from '../src/domain/flakiness.js';
import type { FailureKind } from '../src/domain/verdicts.js';
import { failureKindOf, permanentFailureTypes } from '../workflows/shared.js';
import {
  attemptInput,
  attemptOf,
  isPlanTestRef,
  type PlanTestRef,
  type TestExecutionInput,
  type TestExecutionResult,
} from '../workflows/test-execution-contract.js';
import type { createMobileActivities } from './mobile.js';
import type { createRunActivities } from './runs.js';
import type { createTestExecutionActivities } from './test-execution.js';

type RunActivities = ReturnType<typeof createRunActivities>;

/** What one replay attempt came to, as `recordTestResult` stores it. */
type Attempt = Omit<Parameters<RunActivities['recordTestResult']>[0], 'runTestCaseId' | 'attempts' | 'flaky'> & {
  outcome: 'PASSED' | 'FAILED' | 'ERROR';
};

/** The activities one test of a plan run is made of, as the worker registered them (a bench may swap one). */
export interface PlanTestParts {
  planTestSettings: RunActivities['planTestSettings'];
  markTestStarted: RunActivities['markTestStarted'];
  recordedTestOutcome: RunActivities['recordedTestOutcome'];
  recordTestResult: RunActivities['recordTestResult'];
  executeTest: ReturnType<typeof createTestExecutionActivities>['executeTest'];
  executeMobileTest: ReturnType<typeof createMobileActivities>['executeMobileTest'];
}

/**
 * The tests of a plan run as activities: each test is marked started, replayed (again on a failure, up to its
 * retries) and recorded, as the testExecution child workflow did, and a batch of ready tests runs back to back in one
 * activity. A child and its three activities cost the Temporal server ~20 history events and a new execution per
 * test, which was most of a large run's orchestration overhead (bench/plan-run); an activity costs three events in
 * the run's history, for up to 8 tests. What is given up: an attempt is no longer a durable step, so a worker that
 * dies mid-batch runs the batch again (Temporal retries the activity after the heartbeat timeout), where the tests it
 * recorded keep their result and only the others run. Every write is idempotent per row.
 */
export function createPlanTestActivities(parts: PlanTestParts, opts: { retryDelaysMs?: readonly number[] } = {}) {
  const attemptOn = (execute: () => Promise<Attempt>) =>
    attemptWithTries(execute, opts.retryDelaysMs ?? browserRetryDelaysMs);
  const runPlanTest = async (input: TestExecutionInput): Promise<PlanTestOutcome> => {
    await parts.markTestStarted({ runTestCaseId: input.runTestCaseId });
    // Run again after a worker died past the recording: the row's outcome stands, the test is not replayed.
    const recorded = await parts.recordedTestOutcome({ runTestCaseId: input.runTestCaseId });
    if (recorded) return recorded;
    if (input.build) {
      const build = input.build;
      const attempt = await attemptOn(async () => {
        const result = await parts.executeMobileTest({
          projectId: input.projectId,
          testCaseId: input.testCaseId,
          buildShortId: build.shortId,
        });
        return { outcome: result.status, error: result.error, durationMs: result.durationMs };
      });
      await parts.recordTestResult({ runTestCaseId: input.runTestCaseId, ...attempt });
      return attempt.outcome;
    }
    if (!input.baseUrl) {
      const error = 'no environment URL for this application (mobile builds cannot be replayed in a browser)';
      await parts.recordTestResult({
        runTestCaseId: input.runTestCaseId,
        outcome: 'ERROR',
        error,
        failureKind: 'test-definition',
      });
      return 'ERROR';
    }
    const retries = input.retries ?? 0;
    for (let attempts = 1; ; attempts++) {
      const attempt = await attemptOn(() => replay(parts, input, input.baseUrl!, attempts));
      if (attempts <= retries && worthRetrying(attempt.outcome, attempt.failureKind)) continue;
      const flaky = attempts > 1 && attempt.outcome === 'PASSED';
      await parts.recordTestResult({
        runTestCaseId: input.runTestCaseId,
        ...attempt,
        ...(attempts > 1 && { attempts, flaky }),
      });
      return attempt.outcome;
    }
  };
  return {
    /**
     * Ready tests of a run, one after the other in one activity (src/domain/run-batches.ts says how many): each is
     * marked, replayed and recorded as on its own, so a batch changes when a test runs, never what it records.
     */
    async runPlanTests(input: {
      tests: (TestExecutionInput | PlanTestRef)[];
    }): Promise<{ outcomes: PlanTestOutcome[] }> {
      const outcomes: PlanTestOutcome[] = [];
      for (const test of await withSettings(parts, input.tests)) outcomes.push(await runPlanTest(test));
      return { outcomes };
    },

    /**
     * A batch whose activity failed for good (the worker died on every try, the database was down): each test keeps
     * the outcome it recorded, the others are the ERROR with `error`, so the run and the rows agree.
     */
    async settlePlanTests(input: {
      runTestCaseIds: string[];
      error: string;
      failureKind: FailureKind;
    }): Promise<{ outcomes: PlanTestOutcome[] }> {
      const outcomes: PlanTestOutcome[] = [];
      for (const runTestCaseId of input.runTestCaseIds) {
        const recorded = await parts.recordedTestOutcome({ runTestCaseId });
        if (recorded) {
          outcomes.push(recorded);
          continue;
        }
        await parts.recordTestResult({
          runTestCaseId,
          outcome: 'ERROR',
          error: input.error,
          failureKind: input.failureKind,
        });
        outcomes.push('ERROR');
      }
      return { outcomes };
    },
  };
}

/** Each reference completed with its row's URL, build and device (an entry that has them already is kept). */
async function withSettings(
  parts: PlanTestParts,
  tests: (TestExecutionInput | PlanTestRef)[],
): Promise<TestExecutionInput[]> {
  const refs = tests.filter(isPlanTestRef);
  if (refs.length === 0) return tests as TestExecutionInput[];
  const settings = new Map(
    (await parts.planTestSettings({ runTestCaseIds: refs.map((r) => r.runTestCaseId) })).map((s) => [
      s.runTestCaseId,
      s,
    ]),
  );
  return tests.map((t) => (isPlanTestRef(t) ? { ...t, ...settings.get(t.runTestCaseId)! } : t));
}

/** A test's outcome as its row holds it (a row cancelled meanwhile says so). */
type PlanTestOutcome = TestExecutionResult['outcome'] | 'SKIPPED' | 'CANCELLED';

/**
 * As the child's browser activity was retried by Temporal (activity-options.ts `browserActivity`: 3 tries, 2 s then
 * 4 s apart), an attempt's replay that throws a passing trouble (a crashed browser) is tried again before it counts.
 */
const browserRetryDelaysMs = [2_000, 4_000];

/**
 * An attempt whose replay threw for good is the attempt's ERROR, with what the error says about the test (as the
 * child workflow recorded it); a cancellation (the run was cancelled) is not an outcome and goes up.
 */
async function attemptWithTries(execute: () => Promise<Attempt>, retryDelaysMs: readonly number[]): Promise<Attempt> {
  for (let tries = 0; ; tries++) {
    try {
      return await execute();
    } catch (err) {
      if (err instanceof CancelledFailure) throw err;
      if (tries < retryDelaysMs.length && !permanent(err)) {
        await delay(retryDelaysMs[tries]);
        continue;
      }
      const failureKind: FailureKind = failureKindOf(err);
      return { outcome: 'ERROR', error: err instanceof Error ? err.message : String(err), failureKind };
    }
  }
}

/** An error Temporal would not have retried: a domain error (mapped once in failures.ts) or one marked so. */
function permanent(err: unknown): boolean {
  return err instanceof ApplicationFailure && (err.nonRetryable || permanentFailureTypes.includes(err.type ?? ''));
}

async function replay(
  parts: PlanTestParts,
  input: TestExecutionInput,
  baseUrl: string,
  attempt: number,
): Promise<Attempt> {
  return attemptOf(await parts.executeTest(attemptInput(input, baseUrl, attempt)));
}
