import { Context } from '@temporalio/activity';
import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecuteTestInput, ExecuteTestResult } from '../../activities/test-execution.js';
import { failureTypes, type TestExecutionInput } from '../../workflows/shared.js';
import { createWorkflowHarness, recorder, until, type MockActivities, type WorkflowHarness } from '../support/workflow-harness.js';

// testExecution replays one test of a run and writes its outcome on the run's row; these tests drive its branches
// with the browser activity's answers (passed, failed, an error, cancellation) and check what it records.

let h: WorkflowHarness;
beforeAll(async () => {
  h = await createWorkflowHarness();
});
afterAll(() => h?.teardown());

type RecordTestResultInput = Parameters<NonNullable<MockActivities['recordTestResult']>>[0];

const stateKey = 'runs/run_abc/state/tc-1.json';
const passed: ExecuteTestResult = { status: 'PASSED', healed: [], stepsVersion: 1, traceKey: 'runs/r1/t1/trace.zip', durationMs: 1234, llmCalls: 0, stateKey };

function activities(executeTest: (input: ExecuteTestInput) => Promise<ExecuteTestResult>) {
  return {
    markTestStarted: recorder(async (_i: { runTestCaseId: string }) => {}),
    recordTestResult: recorder(async (_i: RecordTestResultInput) => {}),
    executeTest: recorder(executeTest),
  } satisfies MockActivities;
}

const input = (over: Partial<TestExecutionInput> = {}): TestExecutionInput => ({
  runId: 'run-uuid',
  runShortId: 'run_abc',
  projectId: 'project-1',
  runTestCaseId: 'rtc-1',
  testCaseId: 'tc-1',
  baseUrl: 'https://shop.test',
  device: null,
  captureStateKey: stateKey,
  heal: false,
  ...over,
});

describe('testExecution', () => {
  it('a passing replay: marks the test started, records PASSED with its trace and hands on the key of the browser state it stored for dependents', async () => {
    const mocks = activities(async () => passed);
    const result = await h.withWorker(mocks, async (q) => (await q.start('testExecution', [input()])).result());

    expect(result).toEqual({ outcome: 'PASSED' });
    expect(mocks.markTestStarted.calls).toEqual([[{ runTestCaseId: 'rtc-1' }]]);
    expect(mocks.executeTest.calls[0]![0]).toMatchObject({ projectId: 'project-1', testCaseId: 'tc-1', artifactPrefix: 'runs/run_abc/tc-1', baseUrl: 'https://shop.test', captureStateKey: stateKey, heal: false });
    expect(mocks.recordTestResult.calls).toEqual([[expect.objectContaining({ runTestCaseId: 'rtc-1', outcome: 'PASSED', traceKey: 'runs/r1/t1/trace.zip', durationMs: 1234 })]]);
  });

  it('a failing step: records FAILED with the step index, the error and the screenshot', async () => {
    const mocks = activities(async () => ({ ...passed, status: 'FAILED', failedStepIndex: 2, error: 'no button named Pay', screenshotKey: 'runs/r1/t1/failure.png', stateKey: undefined }));
    const result = await h.withWorker(mocks, async (q) => (await q.start('testExecution', [input()])).result());

    expect(result.outcome).toBe('FAILED');
    expect(mocks.recordTestResult.calls[0]![0]).toMatchObject({ outcome: 'FAILED', failedStepIndex: 2, error: 'no button named Pay', screenshotKey: 'runs/r1/t1/failure.png' });
  });

  it('no environment URL: ERROR with the reason, and no browser is opened', async () => {
    const mocks = activities(async () => passed);
    const result = await h.withWorker(mocks, async (q) => (await q.start('testExecution', [input({ baseUrl: null })])).result());

    expect(result).toEqual({ outcome: 'ERROR' });
    expect(mocks.executeTest.calls).toHaveLength(0);
    expect(mocks.recordTestResult.calls[0]![0]).toMatchObject({ outcome: 'ERROR', error: expect.stringContaining('no environment URL') });
  });

  it('a test that cannot run (no recorded steps): ERROR with the activity message, not retried', async () => {
    const mocks = activities(async () => {
      throw ApplicationFailure.create({ message: 'test case "Checkout" has no recorded steps', type: failureTypes.badDefinition, nonRetryable: true });
    });
    const result = await h.withWorker(mocks, async (q) => (await q.start('testExecution', [input()])).result());

    expect(result).toEqual({ outcome: 'ERROR' });
    expect(mocks.executeTest.calls).toHaveLength(1);
    expect(mocks.recordTestResult.calls).toEqual([[{ runTestCaseId: 'rtc-1', outcome: 'ERROR', error: 'test case "Checkout" has no recorded steps' }]]);
  });

  it('cancelled mid-replay (the run was cancelled): the browser activity is cancelled and no outcome is recorded', async () => {
    let cancelledActivity = false;
    const mocks = activities(async () => {
      // A replay in progress: it heartbeats, which is how it learns of the cancellation.
      const ctx = Context.current();
      const beat = setInterval(() => ctx.heartbeat(), 100);
      try {
        return await ctx.cancelled;
      } catch (err) {
        cancelledActivity = true;
        throw err;
      } finally {
        clearInterval(beat);
      }
    });
    const err = await h.withWorker(mocks, async (q) => {
      const handle = await q.start('testExecution', [input()]);
      await until(() => mocks.executeTest.calls.length > 0);
      await handle.cancel();
      // The real clock, not `result()`: the test server would skip time past the activity's heartbeat timeout.
      await until(async () => (await handle.describe()).status.name !== 'RUNNING');
      return handle.result().then(() => undefined, (e: unknown) => e);
    });

    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect(cancelledActivity).toBe(true);
    expect(mocks.recordTestResult.calls).toHaveLength(0);
  });
});
