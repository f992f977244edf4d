// One replay attempt of a run's test, as the testExecution workflow and the runPlanTests activity
// (activities/plan-test.ts) both make it: what `executeTest` is asked, and what its answer comes to.
import type { Activities } from '../activities/index.js';
import type { TestExecutionInput } from './test-execution-contract.js';

type ExecuteTest = Activities['executeTest'];

/** What one replay attempt came to, as `recordTestResult` stores it. */
export type Attempt = Omit<Parameters<Activities['recordTestResult']>[0], 'runTestCaseId' | 'attempts' | 'flaky'> & {
  outcome: 'PASSED' | 'FAILED' | 'ERROR';
};

/**
 * What `executeTest` is asked for attempt `attempt` (1 first). Each attempt writes under its own prefix, so a passing
 * retry's trace never mixes with the failed one's screenshot.
 */
export function attemptInput(input: TestExecutionInput, baseUrl: string, attempt: number): Parameters<ExecuteTest>[0] {
  const prefix = `runs/${input.runShortId}/${input.testCaseId}`;
  return {
    projectId: input.projectId,
    testCaseId: input.testCaseId,
    artifactPrefix: attempt === 1 ? prefix : `${prefix}/attempt-${attempt}`,
    baseUrl,
    device: input.device,
    stateKey: input.stateKey,
    heal: input.heal,
    captureStateKey: input.captureStateKey,
    runId: input.runId,
    runTestCaseId: input.runTestCaseId,
  };
}

/** The attempt an `executeTest` answer comes to. */
export function attemptOf(result: Awaited<ReturnType<ExecuteTest>>): Attempt {
  return {
    outcome: result.status,
    error: result.error,
    failedStepIndex: result.failedStepIndex,
    healed: result.healed,
    screenshotKey: result.screenshotKey,
    traceKey: result.traceKey,
    durationMs: result.durationMs,
    changes: result.changes,
    failureKind: result.failureKind,
    evidence: result.evidence,
    downloads: result.downloads,
    signals: result.signals,
  };
}
