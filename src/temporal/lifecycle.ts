// The API starts workflows only through these helpers, with business ids: starting twice is harmless.
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { workflowIds, workflowTypes, type BurnInInput, type PlanRunInput } from '../../workflows/shared.js';
import type { TemporalClientProvider } from './client.js';

/** Starts the burn-in that records a test case's steps; a burn-in already running for it counts as started. */
export async function startBurnIn(temporal: TemporalClientProvider, input: BurnInInput, summary?: string): Promise<void> {
  const client = await temporal.get();
  try {
    await client.workflow.start(workflowTypes.burnIn, {
      taskQueue: temporal.taskQueue,
      workflowId: workflowIds.burnIn(input.testCaseId),
      // Shown in the Temporal UI's workflow list, so an operator sees which test this is without opening it.
      staticSummary: summary,
      args: [input],
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return;
    throw err;
  }
}

/** Starts the run's orchestration (`run:<shortId>`); a second start of the same run is a no-op. */
export async function startPlanRun(temporal: TemporalClientProvider, input: PlanRunInput, summary?: string): Promise<void> {
  const client = await temporal.get();
  try {
    await client.workflow.start(workflowTypes.planRun, {
      taskQueue: temporal.taskQueue,
      workflowId: workflowIds.planRun(input.runShortId),
      staticSummary: summary,
      args: [input],
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return;
    throw err;
  }
}

/** Asks a run to stop: running tests are cancelled (their browser contexts closed), pending ones never start. */
export async function cancelPlanRun(temporal: TemporalClientProvider, runShortId: string): Promise<void> {
  const client = await temporal.get();
  await client.workflow.getHandle(workflowIds.planRun(runShortId)).cancel();
}
