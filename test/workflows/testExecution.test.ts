import { Context } from '@temporalio/activity';
import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import type { ExecuteTestInput, ExecuteTestResult } from '../../activities/test-execution.js';
import { failureTypes } from '../../workflows/shared.js';
import type { TestExecutionInput } from '../../workflows/test-execution-contract.js';
import { testExecutionInput } from '../support/test-execution-input.js';
import { useWorkflowHarness, recorder, until, type MockActivities, failureOf } from '../support/workflow-harness.js';
import { failureForGood } from '../support/activity-failures.js';

// testExecution replays one test of a run and writes its outcome on the run's row; these tests drive its branches
// with the browser activity's answers (passed, failed, an error, cancellation) and check what it records.

const h = useWorkflowHarness();

type RecordTestResultInput = Parameters<NonNullable<MockActivities['recordTestResult']>>[0];

const stateKey = 'runs/run_abc/state/tc-1.json';
const passed: ExecuteTestResult = {
  status: 'PASSED',
  healed: [],
  stepsVersion: 1,
  traceKey: 'runs/r1/t1/trace.zip',
  durationMs: 1234,
  llmCalls: 0,
  stateKey,
  changes: [],
};
const failed: ExecuteTestResult = {
  ...passed,
  status: 'FAILED',
  failedStepIndex: 1,
  error: 'step 2: expected "Order placed"',
  screenshotKey: 'runs/run_abc/tc-1/failure.png',
  traceKey: 'runs/run_abc/tc-1/trace.zip',
  stateKey: undefined,
  failureKind: 'assertion',
  evidence: { url: 'https://shop.test/cart', pageExcerpt: 'Payment declined' },
};

function activities(executeTest: (input: ExecuteTestInput) => Promise<ExecuteTestResult>) {
  return {
    markTestStarted: recorder(async (_i: { runTestCaseId: string }) => {}),
    recordTestResult: recorder(async (_i: RecordTestResultInput) => {}),
    executeTest: recorder(executeTest),
  } satisfies MockActivities;
}

const input = (over: Partial<TestExecutionInput> = {}): TestExecutionInput =>
  testExecutionInput({ captureStateKey: stateKey, ...over });

describe('testExecution', () => {
  it('a passing replay: marks the test started, records PASSED with its trace and hands on the key of the browser state it stored for dependents', async () => {
    const mocks = activities(async () => passed);
    const result = await h.withWorker(mocks, async (q) => (await q.start('testExecution', [input()])).result());

    expect(result).toEqual({ outcome: 'PASSED' });
    expect(mocks.markTestStarted.calls).toEqual([[{ runTestCaseId: 'rtc-1' }]]);
    expect(mocks.executeTest.calls[0]![0]).toMatchObject({
      projectId: 'project-1',
      testCaseId: 'tc-1',
      artifactPrefix: 'runs/run_abc/tc-1',
      baseUrl: 'https://shop.test',
      captureStateKey: stateKey,
      heal: false,
    });
    expect(mocks.recordTestResult.calls).toEqual([
      [
        expect.objectContaining({
          runTestCaseId: 'rtc-1',
          outcome: 'PASSED',
          traceKey: 'runs/r1/t1/trace.zip',
          durationMs: 1234,
        }),
      ],
    ]);
  });

  it('a failing step: records FAILED with the step index, the error and the screenshot', async () => {
    const mocks = activities(async () => ({
      ...passed,
      status: 'FAILED',
      failedStepIndex: 2,
      error: 'no button named Pay',
      screenshotKey: 'runs/r1/t1/failure.png',
      stateKey: undefined,
    }));
    const result = await h.withWorker(mocks, async (q) => (await q.start('testExecution', [input()])).result());

    expect(result.outcome).toBe('FAILED');
    expect(mocks.recordTestResult.calls[0]![0]).toMatchObject({
      outcome: 'FAILED',
      failedStepIndex: 2,
      error: 'no button named Pay',
      screenshotKey: 'runs/r1/t1/failure.png',
    });
  });

  it('no environment URL: ERROR with the reason, and no browser is opened', async () => {
    const mocks = activities(async () => passed);
    const result = await h.withWorker(mocks, async (q) =>
      (await q.start('testExecution', [input({ baseUrl: null })])).result(),
    );

    expect(result).toEqual({ outcome: 'ERROR' });
    expect(mocks.executeTest.calls).toHaveLength(0);
    expect(mocks.recordTestResult.calls[0]![0]).toMatchObject({
      outcome: 'ERROR',
      error: expect.stringContaining('no environment URL'),
    });
  });

  it('a test that cannot run (no recorded steps): ERROR with the activity message, not retried', async () => {
    const mocks = activities(async () => {
      throw failureForGood('test case "Checkout" has no recorded steps', failureTypes.badDefinition);
    });
    const result = await h.withWorker(mocks, async (q) => (await q.start('testExecution', [input()])).result());

    expect(result).toEqual({ outcome: 'ERROR' });
    expect(mocks.executeTest.calls).toHaveLength(1);
    expect(mocks.recordTestResult.calls).toEqual([
      [
        {
          runTestCaseId: 'rtc-1',
          outcome: 'ERROR',
          error: 'test case "Checkout" has no recorded steps',
          failureKind: 'test-definition',
        },
      ],
    ]);
  });

  it("records the replay's changes, failure kind and evidence", async () => {
    const changes = [
      {
        stepIndex: 0,
        field: 'name' as const,
        from: 'Select all',
        to: null,
        severity: 'regression' as const,
        summary: 'the checkbox "Select all" lost its accessible name',
      },
    ];
    const mocks = activities(async () => ({ ...failed, changes }));
    await h.withWorker(mocks, async (q) => (await q.start('testExecution', [input()])).result());

    expect(mocks.recordTestResult.calls[0]![0]).toMatchObject({
      outcome: 'FAILED',
      changes,
      failureKind: 'assertion',
      evidence: failed.evidence,
    });
  });

  it("a test that fails and then passes on its retry is PASSED and flaky, with the passing attempt's artifacts and the attempts counted", async () => {
    let calls = 0;
    const mocks = activities(async (i) =>
      ++calls === 1 ? failed : { ...passed, traceKey: `${i.artifactPrefix}/trace.zip` },
    );
    const result = await h.withWorker(mocks, async (q) =>
      (await q.start('testExecution', [input({ retries: 1 })])).result(),
    );

    expect(result).toEqual({ outcome: 'PASSED' });
    expect(mocks.executeTest.calls.map(([i]) => i.artifactPrefix)).toEqual([
      'runs/run_abc/tc-1',
      'runs/run_abc/tc-1/attempt-2',
    ]);
    expect(mocks.recordTestResult.calls).toHaveLength(1);
    const recorded = mocks.recordTestResult.calls[0]![0];
    expect(recorded).toMatchObject({
      outcome: 'PASSED',
      attempts: 2,
      flaky: true,
      traceKey: 'runs/run_abc/tc-1/attempt-2/trace.zip',
    });
    expect(recorded.screenshotKey).toBeUndefined();
    expect(recorded.failureKind).toBeUndefined();
  });

  it('a test that fails on every attempt runs 1 + retries times and records the last failure, not flaky', async () => {
    const mocks = activities(async (i) => ({ ...failed, screenshotKey: `${i.artifactPrefix}/failure.png` }));
    const result = await h.withWorker(mocks, async (q) =>
      (await q.start('testExecution', [input({ retries: 2 })])).result(),
    );

    expect(result).toEqual({ outcome: 'FAILED' });
    expect(mocks.executeTest.calls).toHaveLength(3);
    expect(mocks.recordTestResult.calls).toEqual([
      [
        expect.objectContaining({
          outcome: 'FAILED',
          attempts: 3,
          flaky: false,
          screenshotKey: 'runs/run_abc/tc-1/attempt-3/failure.png',
          failureKind: 'assertion',
        }),
      ],
    ]);
  });

  it('an unreachable application is an environment ERROR and is retried; one that answers on the retry passes, flaky', async () => {
    let calls = 0;
    const mocks = activities(async () => {
      if (++calls === 1) throw failureForGood('https://shop.test answered 503', failureTypes.unreachable);
      return passed;
    });
    const result = await h.withWorker(mocks, async (q) =>
      (await q.start('testExecution', [input({ retries: 1 })])).result(),
    );

    expect(result).toEqual({ outcome: 'PASSED' });
    expect(mocks.recordTestResult.calls[0]![0]).toMatchObject({ outcome: 'PASSED', attempts: 2, flaky: true });

    const down = activities(async () => {
      throw failureForGood('https://shop.test answered 503', failureTypes.unreachable);
    });
    await h.withWorker(down, async (q) => (await q.start('testExecution', [input({ retries: 1 })])).result());
    expect(down.executeTest.calls).toHaveLength(2);
    expect(down.recordTestResult.calls[0]![0]).toMatchObject({
      outcome: 'ERROR',
      failureKind: 'environment',
      attempts: 2,
      flaky: false,
    });
  });

  it('a test that cannot run as defined is not retried, and a crash is an infrastructure ERROR', async () => {
    const bad = activities(async () => {
      throw failureForGood('test case "Checkout" has no recorded steps', failureTypes.badDefinition);
    });
    await h.withWorker(bad, async (q) => (await q.start('testExecution', [input({ retries: 3 })])).result());
    expect(bad.executeTest.calls).toHaveLength(1);

    const crash = activities(async () => {
      throw ApplicationFailure.create({ message: 'browser has been closed', nonRetryable: true });
    });
    await h.withWorker(crash, async (q) => (await q.start('testExecution', [input()])).result());
    expect(crash.recordTestResult.calls[0]![0]).toMatchObject({ outcome: 'ERROR', failureKind: 'infrastructure' });
  });

  it('without retries in its input (a run started before retries existed) a failed test is not run again', async () => {
    const mocks = activities(async () => failed);
    await h.withWorker(mocks, async (q) => (await q.start('testExecution', [input()])).result());
    expect(mocks.executeTest.calls).toHaveLength(1);
    expect(mocks.recordTestResult.calls[0]![0]).not.toHaveProperty('attempts');
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
      return failureOf(handle);
    });

    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect(cancelledActivity).toBe(true);
    expect(mocks.recordTestResult.calls).toHaveLength(0);
  });
});
