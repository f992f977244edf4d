import { isCancellation, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import type { DeviceSettings } from '../src/db/queries/execution.js';
import { browserActivity, dbActivity } from './activity-options.js';
import type { MobileBuildRef, TestExecutionInput, TestExecutionResult } from './shared.js';
import { innermostMessage } from './errors.js';

type Activities = ReturnType<typeof createActivities>;
// Row updates are local activities: each remote dispatch costs a workflow task and a queue round trip, and
// with three per test that bookkeeping was most of a run's orchestration overhead (bench/plan-run).
const db = proxyLocalActivities<Activities>({ startToCloseTimeout: dbActivity.startToCloseTimeout, retry: dbActivity.retry });
const browser = proxyActivities<Activities>(browserActivity);

/** One test of a run: replay its recorded steps (no LLM unless healing) and record the result on its row. */
export async function testExecution(input: TestExecutionInput): Promise<TestExecutionResult> {
  await db.markTestStarted({ runTestCaseId: input.runTestCaseId });
  if (input.build) return executeOnDevice(input, input.build);
  if (!input.baseUrl) {
    const error = 'no environment URL for this application (mobile builds cannot be replayed in a browser)';
    await db.recordTestResult({ runTestCaseId: input.runTestCaseId, outcome: 'ERROR', error });
    return { outcome: 'ERROR' };
  }
  try {
    const result = await browser.executeTest({
      projectId: input.projectId,
      testCaseId: input.testCaseId,
      artifactPrefix: `runs/${input.runShortId}/${input.testCaseId}`,
      baseUrl: input.baseUrl,
      device: input.device as DeviceSettings | null,
      stateKey: input.stateKey,
      heal: input.heal,
      captureStateKey: input.captureStateKey,
    });
    await db.recordTestResult({
      runTestCaseId: input.runTestCaseId,
      outcome: result.status,
      error: result.error,
      failedStepIndex: result.failedStepIndex,
      healed: result.healed,
      screenshotKey: result.screenshotKey,
      traceKey: result.traceKey,
      durationMs: result.durationMs,
    });
    return { outcome: result.status };
  } catch (err) {
    if (isCancellation(err)) throw err;
    const error = innermostMessage(err);
    await db.recordTestResult({ runTestCaseId: input.runTestCaseId, outcome: 'ERROR', error });
    return { outcome: 'ERROR' };
  }
}

/** A test of a mobile application: the device farm installs the build; without a farm the test is an ERROR. */
async function executeOnDevice(input: TestExecutionInput, build: MobileBuildRef): Promise<TestExecutionResult> {
  try {
    const result = await browser.executeMobileTest({ projectId: input.projectId, testCaseId: input.testCaseId, buildShortId: build.shortId });
    await db.recordTestResult({ runTestCaseId: input.runTestCaseId, outcome: result.status, error: result.error, durationMs: result.durationMs });
    return { outcome: result.status };
  } catch (err) {
    if (isCancellation(err)) throw err;
    await db.recordTestResult({ runTestCaseId: input.runTestCaseId, outcome: 'ERROR', error: innermostMessage(err) });
    return { outcome: 'ERROR' };
  }
}
