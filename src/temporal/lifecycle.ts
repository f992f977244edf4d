// The API starts workflows only through these helpers, with business ids: starting twice is harmless.
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { workflowIds, workflowTypes, type BurnInInput } from '../../workflows/shared.js';
import type { TemporalClientProvider } from './client.js';

/** Starts the burn-in that records a test case's steps; a burn-in already running for it counts as started. */
export async function startBurnIn(temporal: TemporalClientProvider, input: BurnInInput): Promise<void> {
  const client = await temporal.get();
  try {
    await client.workflow.start(workflowTypes.burnIn, {
      taskQueue: temporal.taskQueue,
      workflowId: workflowIds.burnIn(input.testCaseId),
      args: [input],
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return;
    throw err;
  }
}
