import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPlanTestActivities } from '../../activities/plan-test.js';
import type { ExecuteTestInput, ExecuteTestResult } from '../../activities/test-execution.js';
import { failureTypes } from '../../workflows/shared.js';
import type { TestExecutionInput } from '../../workflows/test-execution-contract.js';
import { testExecutionInput } from '../support/test-execution-input.js';
import { useWorkflowHarness, recorder, type MockActivities } from '../support/workflow-harness.js';
import { failureForGood } from '../support/activity-failures.js';

// A plan run's test used to be a testExecution child workflow and now runs inside a runPlanTests activity (the child stays for
// runs started before). The child is the oracle: for any sequence of what the replay does (pass, fail, throw a
// permanent or a passing error) and any number of retries, both must make the same replays with the same inputs and
// record the same result, or a run's verdict would depend on which path ran it.

const h = useWorkflowHarness();

type Behaviour = 'pass' | 'fail' | 'definition' | 'unreachable' | 'crash' | 'flaky-infra';

const passed: ExecuteTestResult = {
  status: 'PASSED',
  healed: [],
  stepsVersion: 1,
  durationMs: 120,
  llmCalls: 0,
  changes: [],
};

/** The replay's answer to its n-th call; after the script, it passes. Artifacts name the attempt's prefix. */
function scripted(script: Behaviour[]) {
  let call = 0;
  return async (input: ExecuteTestInput): Promise<ExecuteTestResult> => {
    const behaviour = script[call++] ?? 'pass';
    switch (behaviour) {
      case 'pass':
        return { ...passed, traceKey: `${input.artifactPrefix}/trace.zip` };
      case 'fail':
        return {
          ...passed,
          status: 'FAILED',
          failedStepIndex: 1,
          error: 'expected "Order placed"',
          failureKind: 'assertion',
          screenshotKey: `${input.artifactPrefix}/failure.png`,
        };
      case 'definition':
        throw failureForGood('test case has no recorded steps', failureTypes.badDefinition);
      case 'unreachable':
        throw failureForGood('https://shop.test answered 503', failureTypes.unreachable);
      case 'crash':
        throw failureForGood('browser has been closed', 'BrowserClosed');
      case 'flaky-infra':
        // Retryable: the child's Temporal retry policy tried the replay again; the activity does the same.
        throw new Error('Target page, context or browser has been closed');
    }
  };
}

const input = (retries: number): TestExecutionInput => testExecutionInput({ retries });

function parts(script: Behaviour[]) {
  return {
    // A test handed by reference (no URL, build, device) reads them from its row: here, what `input` has.
    planTestSettings: async ({ runTestCaseIds }: { runTestCaseIds: string[] }) =>
      runTestCaseIds.map((runTestCaseId) => ({ runTestCaseId, baseUrl: input(0).baseUrl, build: null, device: null })),
    markTestStarted: recorder(async (_i: { runTestCaseId: string }) => {}),
    recordedTestOutcome: async () => null,
    recordTestResult: recorder(async (_i: Parameters<NonNullable<MockActivities['recordTestResult']>>[0]) => {}),
    executeTest: recorder(scripted(script)),
  };
}

const behaviour = fc.constantFrom<Behaviour>(
  'pass',
  'fail',
  'fail',
  'definition',
  'unreachable',
  'crash',
  'flaky-infra',
);

describe('a test in runPlanTests (activity) against testExecution (child workflow)', () => {
  it('makes the same replays and records the same result for any replay script and retries, handed on whole or by reference', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(behaviour, { maxLength: 5 }),
        fc.integer({ min: 0, max: 3 }),
        fc.boolean(),
        async (script, retries, byReference) => {
          const child = parts(script);
          const childResult = await h.withWorker(child, async (q) =>
            (await q.start('testExecution', [input(retries)])).result(),
          );

          const direct = parts(script);
          const activity = createPlanTestActivities(
            { ...direct, executeMobileTest: async () => Promise.reject(new Error('no device tests')) },
            { retryDelaysMs: [0, 0] },
          );
          // The run hands the test on by reference (planRun since plan-graph-by-reference) or whole (before).
          const { baseUrl: _url, build: _build, device: _device, ...ref } = input(retries);
          const { outcomes } = await activity.runPlanTests({ tests: [byReference ? ref : input(retries)] });

          expect({ outcome: outcomes[0] }).toEqual(childResult);
          expect(direct.executeTest.calls).toEqual(child.executeTest.calls);
          expect(direct.recordTestResult.calls).toEqual(child.recordTestResult.calls);
          expect(direct.markTestStarted.calls.length).toBeGreaterThanOrEqual(1);
        },
      ),
      { numRuns: 40 },
    );
  }, 240_000);

  it('a test without an environment URL is an ERROR of its definition, and nothing is replayed', async () => {
    const direct = parts([]);
    const activity = createPlanTestActivities({
      ...direct,
      executeMobileTest: async () => Promise.reject(new Error('no device tests')),
    });
    expect(await activity.runPlanTests({ tests: [{ ...input(2), baseUrl: null }] })).toEqual({ outcomes: ['ERROR'] });
    expect(direct.executeTest.calls).toEqual([]);
    expect(direct.recordTestResult.calls).toEqual([
      [expect.objectContaining({ outcome: 'ERROR', failureKind: 'test-definition' })],
    ]);
  });
});
