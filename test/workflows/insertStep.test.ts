import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import type { RecordInsertedStepsResult } from '../../activities/insert-step.js';
import type { InsertionOutcome } from '../../src/services/step-insert.js';
import type { Step } from '../../src/domain/steps.js';
import { failureTypes, workflowIds } from '../../workflows/shared.js';
import type { InsertStepInput } from '../../workflows/insert-step-contract.js';
import { todoSteps } from '../support/recorded.js';
import {
  useWorkflowHarness,
  recorder,
  until,
  type MockActivities,
  busyUntilCancelled,
  failureOf,
} from '../support/workflow-harness.js';
import { failureForGood } from '../support/activity-failures.js';

// insertStep on the time-skipping server: what the recording answers decides whether the steps are saved, and every
// way it ends (recorded, refused, failed, cancelled) is written to the insertion a person polls.

const h = useWorkflowHarness();

const recordedStep: Step[] = [todoSteps('milk')[0]!];

function activities(
  record: (input: InsertStepInput) => Promise<RecordInsertedStepsResult>,
  saved: InsertionOutcome = { status: 'COMPLETED', version: 4, insertedSteps: 1 },
) {
  return {
    recordInsertedSteps: recorder(record),
    saveStepInsertion: recorder(async (_input: { insertionId: string; steps: Step[] }) => saved),
    failStepInsertion: recorder(
      async (input: { insertionId: string; failureReason: string }): Promise<InsertionOutcome> => ({
        status: 'FAILED',
        failureReason: input.failureReason,
      }),
    ),
  } satisfies MockActivities;
}

const input = (): InsertStepInput => ({ projectId: 'project-1', testCaseId: 'tc-1', insertionId: h.uniqueId('ins') });

describe('insertStep', () => {
  it('recorded: saves the recorded steps for the insertion and answers the new version', async () => {
    const mocks = activities(async () => ({ status: 'RECORDED', steps: recordedStep }));
    const i = input();
    const result = await h.withWorker(mocks, async (q) =>
      (await q.start('insertStep', [i], workflowIds.insertStep(i.insertionId))).result(),
    );

    expect(result).toEqual({ status: 'COMPLETED', version: 4, insertedSteps: 1 });
    expect(mocks.recordInsertedSteps.calls).toEqual([[i]]);
    expect(mocks.saveStepInsertion.calls).toEqual([[{ insertionId: i.insertionId, steps: recordedStep }]]);
    expect(mocks.failStepInsertion.calls).toEqual([]);
  });

  it('the save finds the steps changed meanwhile: FAILED as the save says, nothing else written', async () => {
    const conflict: InsertionOutcome = {
      status: 'FAILED',
      failureReason: 'the steps changed while the step was being recorded',
    };
    const mocks = activities(async () => ({ status: 'RECORDED', steps: recordedStep }), conflict);
    const result = await h.withWorker(mocks, async (q) => (await q.start('insertStep', [input()])).result());

    expect(result).toEqual(conflict);
    expect(mocks.failStepInsertion.calls).toEqual([]);
  });

  it('the steps before the position do not replay: FAILED with the reason, nothing saved', async () => {
    const reason =
      'the steps before position 3 did not replay, so nothing was recorded: step 2 (click): no element matches';
    const mocks = activities(async () => ({ status: 'FAILED', failureReason: reason }));
    const i = input();
    const result = await h.withWorker(mocks, async (q) => (await q.start('insertStep', [i])).result());

    expect(result).toEqual({ status: 'FAILED', failureReason: reason });
    expect(mocks.saveStepInsertion.calls).toEqual([]);
    expect(mocks.failStepInsertion.calls).toEqual([[{ insertionId: i.insertionId, failureReason: reason }]]);
  });

  it('the recording fails for good (budget spent): FAILED with the innermost message, not retried', async () => {
    const mocks = activities(async () => {
      throw failureForGood('the daily LLM budget is spent', failureTypes.llmBudgetExceeded);
    });
    const result = await h.withWorker(mocks, async (q) => (await q.start('insertStep', [input()])).result());

    expect(result).toEqual({ status: 'FAILED', failureReason: 'the daily LLM budget is spent' });
    expect(mocks.recordInsertedSteps.calls).toHaveLength(1);
    expect(mocks.saveStepInsertion.calls).toEqual([]);
  });

  it('a transient failure is retried: the second attempt records and is saved', async () => {
    let attempts = 0;
    const mocks = activities(async () => {
      if (++attempts === 1) throw new Error('browser crashed');
      return { status: 'RECORDED', steps: recordedStep };
    });
    const result = await h.withWorker(mocks, async (q) => (await q.start('insertStep', [input()])).result());

    expect(result.status).toBe('COMPLETED');
    expect(mocks.recordInsertedSteps.calls).toHaveLength(2);
  });

  it('cancelled while recording: the insertion is marked FAILED, nothing saved', async () => {
    let started = false;
    const mocks = activities(async () => {
      started = true;
      return busyUntilCancelled();
    });
    const i = input();
    const err = await h.withWorker(mocks, async (q) => {
      const handle = await q.start('insertStep', [i]);
      await until(() => started);
      await handle.cancel();
      return failureOf(handle);
    });

    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect(mocks.saveStepInsertion.calls).toEqual([]);
    expect(mocks.failStepInsertion.calls).toEqual([
      [{ insertionId: i.insertionId, failureReason: 'the insertion was cancelled: nothing was saved' }],
    ]);
  });
});
