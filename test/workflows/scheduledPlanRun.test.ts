import { fileURLToPath } from 'node:url';
import { ChildWorkflowFailure, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import type { ScheduledRun } from '../../activities/schedules.js';
import { failureTypes, workflowIds } from '../../workflows/shared.js';
import type { PlanRunInput } from '../../workflows/plan-run-contract.js';
import type { ScheduledPlanRunInput } from '../../workflows/scheduled-plan-run-contract.js';
import { useWorkflowHarness, recorder, type MockActivities, failureOf } from '../support/workflow-harness.js';
import { failureForGood } from '../support/activity-failures.js';

// One tick of a plan's Temporal Schedule: writes the run, then runs it as the child `run:<shortId>` and waits for
// it. The child here is a stand-in (test/workflows/stubs); the Schedule itself is covered by schedules.test.ts.

const h = useWorkflowHarness({
  workflowsPath: fileURLToPath(new URL('./stubs/scheduled-plan-run.ts', import.meta.url)),
});

const tick: ScheduledPlanRunInput = { projectId: 'project-1', testPlanId: 'plan-1', scheduleId: 'plan-schedule:row-1' };

function activities(createScheduledRun: (input: ScheduledPlanRunInput) => Promise<ScheduledRun | null>) {
  return { createScheduledRun: recorder(createScheduledRun) } satisfies MockActivities;
}

/** temporal.api.enums.v1.ParentClosePolicy.PARENT_CLOSE_POLICY_ABANDON, as the history stores it. */
const parentClosePolicyAbandon = 2;

/** The child the tick started, with the input it was given and its parent close policy. */
async function childOf(parent: WorkflowHandle) {
  const events = (await parent.fetchHistory()).events ?? [];
  const initiated = events.map((e) => e.startChildWorkflowExecutionInitiatedEventAttributes).filter((a) => a != null);
  return initiated.map((a) => ({
    workflowId: a.workflowId,
    workflowType: a.workflowType?.name,
    input: defaultPayloadConverter.fromPayload<PlanRunInput>(a.input!.payloads![0]!),
    abandoned: a.parentClosePolicy === parentClosePolicyAbandon,
  }));
}

describe('scheduledPlanRun', () => {
  it('writes the run and runs it as run:<shortId> (abandoned on close, concurrency 100, healing on), returning its result', async () => {
    const shortId = h.uniqueId('run');
    const mocks = activities(async () => ({ runId: 'run-uuid', runShortId: shortId, testCount: 3 }));
    const { result, children } = await h.withWorker(mocks, async (q) => {
      const handle = await q.start('scheduledPlanRun', [tick]);
      return { result: await handle.result(), children: await childOf(handle) };
    });

    expect(result).toEqual({
      runShortId: shortId,
      status: 'COMPLETED',
      result: 'PASSED',
      counts: { PASSED: 3 },
      continuations: 0,
    });
    expect(mocks.createScheduledRun.calls).toEqual([[tick]]);
    expect(children).toEqual([
      {
        workflowId: workflowIds.planRun(shortId),
        workflowType: 'planRun',
        input: { runId: 'run-uuid', runShortId: shortId, projectId: 'project-1', concurrency: 100, heal: true },
        abandoned: true,
      },
    ]);
  });

  it('passes the schedule concurrency to the run', async () => {
    const shortId = h.uniqueId('run');
    const mocks = activities(async () => ({ runId: 'run-uuid', runShortId: shortId, testCount: 3 }));
    const children = await h.withWorker(mocks, async (q) => {
      const handle = await q.start('scheduledPlanRun', [{ ...tick, concurrency: 4 }]);
      await handle.result();
      return childOf(handle);
    });

    expect(children[0]!.input.concurrency).toBe(4);
  });

  it('nothing to run (plan gone, or no enabled test): ends with null and starts no run', async () => {
    const mocks = activities(async () => null);
    const { result, children } = await h.withWorker(mocks, async (q) => {
      const handle = await q.start('scheduledPlanRun', [tick]);
      return { result: await handle.result(), children: await childOf(handle) };
    });

    expect(result).toBeNull();
    expect(children).toEqual([]);
  });

  it('a plan that cannot run as configured fails the tick with the reason, once (not retried)', async () => {
    const mocks = activities(async () => {
      throw failureForGood('application Shop has no environment named staging', failureTypes.invalid);
    });
    const err = await h.withWorker(mocks, async (q) => failureOf(await q.start('scheduledPlanRun', [tick])));

    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause?.cause).toMatchObject({
      message: 'application Shop has no environment named staging',
    });
    expect(mocks.createScheduledRun.calls).toHaveLength(1);
  });

  it('a run that fails fails its tick, so the Schedule shows the failure', async () => {
    const shortId = h.uniqueId('run-broken');
    const mocks = activities(async () => ({ runId: 'run-uuid', runShortId: shortId, testCount: 1 }));
    const err = await h.withWorker(mocks, async (q) => failureOf(await q.start('scheduledPlanRun', [tick])));

    expect(err).toBeInstanceOf(WorkflowFailedError);
    const child = (err as WorkflowFailedError).cause;
    expect(child).toBeInstanceOf(ChildWorkflowFailure);
    expect(child?.cause).toMatchObject({ message: `run ${shortId} broke` });
  });
});
