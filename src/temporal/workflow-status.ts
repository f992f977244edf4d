import { WorkflowNotFoundError, type Client } from '@temporalio/client';

/** Each workflow's status name (RUNNING, TERMINATED, TIMED_OUT, FAILED, CANCELLED, COMPLETED, …); absent: no such workflow. */
async function statuses(client: Client, workflowIds: string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const id of workflowIds) {
    try {
      found.set(id, (await client.workflow.getHandle(id).describe()).status.name);
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  }
  return found;
}

/**
 * The status name of each of these workflows that has closed. A workflow that is running, or that does not exist
 * (not started yet), is left out: the caller keeps waiting for it.
 */
export async function closedWorkflows(client: Client, workflowIds: string[]): Promise<Map<string, string>> {
  return new Map([...(await statuses(client, workflowIds))].filter(([, status]) => status !== 'RUNNING'));
}

/** Those of these workflows that are running now. */
export async function runningWorkflows(client: Client, workflowIds: string[]): Promise<Set<string>> {
  return new Set(
    [...(await statuses(client, workflowIds))].flatMap(([id, status]) => (status === 'RUNNING' ? [id] : [])),
  );
}
