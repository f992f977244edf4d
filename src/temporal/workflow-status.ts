import { WorkflowNotFoundError, type Client } from '@temporalio/client';

/**
 * The status name (TERMINATED, TIMED_OUT, FAILED, CANCELLED, COMPLETED, …) of each of these workflows that has
 * closed. A workflow that is running, or that does not exist (not started yet), is left out: the caller keeps
 * waiting for it.
 */
export async function closedWorkflows(client: Client, workflowIds: string[]): Promise<Map<string, string>> {
  const closed = new Map<string, string>();
  for (const id of workflowIds) {
    try {
      const { status } = await client.workflow.getHandle(id).describe();
      if (status.name !== 'RUNNING') closed.set(id, status.name);
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  }
  return closed;
}
