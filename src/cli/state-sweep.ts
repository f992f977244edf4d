// The browser-state sweep, hosted by the API process next to the mail clean-up: it needs the database, the blob
// store and a Temporal client, all of which the API already holds.
import type { DB } from '../db/database.js';
import type { Logger } from '../logger.js';
import { startBrowserStateSweep } from '../services/browser-states.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { TemporalClientProvider } from '../temporal/client.js';
import { runningWorkflows } from '../temporal/workflow-status.js';

export function startStateSweep(resources: {
  db: DB;
  blobs: BlobStore;
  logger: Logger;
  temporal: TemporalClientProvider;
}): () => Promise<void> {
  const { db, blobs, logger, temporal } = resources;
  return startBrowserStateSweep({ db, blobs, logger, workflowsGone: (ids) => workflowsGone(temporal, ids) });
}

/** Of these workflows (plan runs, discoveries), those not running: closed (terminated, failed, …) or gone from Temporal. */
export async function workflowsGone(
  temporal: Pick<TemporalClientProvider, 'get'>,
  workflowIds: string[],
): Promise<Set<string>> {
  const running = await runningWorkflows(await temporal.get(), workflowIds);
  return new Set(workflowIds.filter((id) => !running.has(id)));
}
