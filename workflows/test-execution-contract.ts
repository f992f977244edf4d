// The testExecution workflow's contract (workflows/testExecution.ts, `run:<runShortId>:<testCaseId>`): one test of a
// plan run, and the reference a run hands its runPlanTests activity instead (activities/plan-test.ts).
import type { DeviceSettings } from '../src/domain/device.js';

export interface TestExecutionInput {
  runId: string;
  runShortId: string;
  projectId: string;
  runTestCaseId: string;
  testCaseId: string;
  baseUrl: string | null;
  /** A mobile build to install instead of opening a URL. */
  build?: MobileBuildRef | null;
  /** The test's device preset as browser-context settings; null: the application's default. */
  device: DeviceSettings | null;
  /** Blob key of the resume-from dependency's browser state: the test starts where that one ended. */
  stateKey?: string;
  /** Dependents resume from this test: after it passes, store its final browser state under this blob key. */
  captureStateKey?: string;
  heal: boolean;
  /**
   * Run a failed test again up to this many times (the project's `retries`, read with the run's plan); a pass on
   * a retry is PASSED and flaky. Absent (a run started before retries existed): never.
   */
  retries?: number;
}

/**
 * A plan run's test as the run hands it to its `runPlanTests` activity: what the run's graph knows. The activity
 * reads the rest (URL, build, device) from the test's row, so a batch's input carries no settings.
 */
export type PlanTestRef = Omit<TestExecutionInput, 'baseUrl' | 'build' | 'device'>;

/** What the test's row adds to its reference (src/db/queries/run-progress.ts `planTestSettings`). */
export type PlanTestSettings = Pick<TestExecutionInput, 'runTestCaseId' | 'baseUrl' | 'build' | 'device'>;

/** A `runPlanTests` input entry is a reference when it has no `baseUrl` (runs from before references carry settings). */
export function isPlanTestRef(test: TestExecutionInput | PlanTestRef): test is PlanTestRef {
  return !('baseUrl' in test);
}

/**
 * What `executeTest` is asked for attempt `attempt` (1 first) of a test, by the testExecution workflow and the
 * runPlanTests activity alike. Each attempt writes under its own prefix, so a passing retry's trace never mixes with
 * the failed one's screenshot.
 */
export function attemptInput(input: TestExecutionInput, baseUrl: string, attempt: number) {
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

type AttemptField =
  | 'error'
  | 'failedStepIndex'
  | 'healed'
  | 'screenshotKey'
  | 'traceKey'
  | 'durationMs'
  | 'changes'
  | 'failureKind'
  | 'evidence'
  | 'downloads'
  | 'signals';

/** What an `executeTest` answer comes to as an attempt, as `recordTestResult` stores it. */
export function attemptOf<Answer extends { status: 'PASSED' | 'FAILED' } & { [F in AttemptField]?: unknown }>(
  result: Answer,
): { outcome: Answer['status'] } & Pick<Answer, AttemptField> {
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

export interface MobileBuildRef {
  shortId: string;
  platform: 'ios' | 'android';
}

export interface TestExecutionResult {
  outcome: 'PASSED' | 'FAILED' | 'ERROR';
}
