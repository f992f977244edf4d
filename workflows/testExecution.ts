import { isCancellation, patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { browserActivity, dbActivity } from './activity-options.js';
import { worthRetrying } from '../src/domain/flakiness.js';
import { failureKindOf } from './shared.js';
import {
  attemptInput,
  attemptOf,
  type MobileBuildRef,
  type TestExecutionInput,
  type TestExecutionResult,
} from './test-execution-contract.js';
import { innermostMessage } from './errors.js';

// Row updates are local activities: each remote dispatch costs a workflow task and a queue round trip, and
// with three per test that bookkeeping was most of a run's orchestration overhead (bench/plan-run).
const db = proxyLocalActivities<Activities>({
  startToCloseTimeout: dbActivity.startToCloseTimeout,
  retry: dbActivity.retry,
});
const browser = proxyActivities<Activities>(browserActivity);

/** What one replay attempt came to, as `recordTestResult` stores it. */
type Attempt = Omit<Parameters<Activities['recordTestResult']>[0], 'runTestCaseId' | 'attempts' | 'flaky'> & {
  outcome: 'PASSED' | 'FAILED' | 'ERROR';
};

/**
 * One test of a run: replay its recorded steps (no LLM unless healing) and record the result on its row. A failed
 * replay runs again, up to `input.retries` times, unless the test cannot run as defined; a pass on a retry is PASSED
 * and flaky. Only the reported attempt's outcome and artifacts are recorded (each attempt writes under its own
 * prefix, so a passing retry's trace never mixes with the failed attempt's screenshot).
 */
export async function testExecution(input: TestExecutionInput): Promise<TestExecutionResult> {
  await db.markTestStarted({ runTestCaseId: input.runTestCaseId });
  if (input.build) return executeOnDevice(input, input.build);
  if (!input.baseUrl) {
    const error = 'no environment URL for this application (mobile builds cannot be replayed in a browser)';
    await db.recordTestResult({
      runTestCaseId: input.runTestCaseId,
      outcome: 'ERROR',
      error,
      failureKind: 'test-definition',
    });
    return { outcome: 'ERROR' };
  }
  const retries = input.retries ?? 0;
  for (let attempts = 1; ; attempts++) {
    const attempt = await replay(input, input.baseUrl, attempts);
    // `patched` last and only when a retry would happen: histories from before retries (no `retries` in their
    // input) never reach it, and a retry in a new history is marked for any later change of this loop.
    const again = attempts <= retries && worthRetrying(attempt.outcome, attempt.failureKind) && patched('test-retries');
    if (again) continue;
    const flaky = attempts > 1 && attempt.outcome === 'PASSED';
    await db.recordTestResult({
      runTestCaseId: input.runTestCaseId,
      ...attempt,
      ...(attempts > 1 && { attempts, flaky }),
    });
    return { outcome: attempt.outcome };
  }
}

async function replay(input: TestExecutionInput, baseUrl: string, attempt: number): Promise<Attempt> {
  try {
    return attemptOf(await browser.executeTest(attemptInput(input, baseUrl, attempt)));
  } catch (err) {
    if (isCancellation(err)) throw err;
    return { outcome: 'ERROR', error: innermostMessage(err), failureKind: failureKindOf(err) };
  }
}

/** A test of a mobile application: the device farm installs the build; without a farm the test is an ERROR. */
async function executeOnDevice(input: TestExecutionInput, build: MobileBuildRef): Promise<TestExecutionResult> {
  try {
    const result = await browser.executeMobileTest({
      projectId: input.projectId,
      testCaseId: input.testCaseId,
      buildShortId: build.shortId,
    });
    await db.recordTestResult({
      runTestCaseId: input.runTestCaseId,
      outcome: result.status,
      error: result.error,
      durationMs: result.durationMs,
    });
    return { outcome: result.status };
  } catch (err) {
    if (isCancellation(err)) throw err;
    await db.recordTestResult({
      runTestCaseId: input.runTestCaseId,
      outcome: 'ERROR',
      error: innermostMessage(err),
      failureKind: failureKindOf(err),
    });
    return { outcome: 'ERROR' };
  }
}
