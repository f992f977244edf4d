import type { DB } from '../db/database.js';
import { runStatusesByShortId } from '../db/queries/run-states.js';
import type { Logger } from '../logger.js';
import type { BlobStore } from '../storage/blob-store.js';

// A resume-from dependency's browser state (cookies, storage: often a signed-in session) is stored at
// `runs/<run>/state/<test case>.json` for its dependents and deleted by the plan run when it ends. A run whose
// workflow was terminated, or whose worker lost the blob store at that moment, never gets there: this sweep deletes
// the states of runs that have ended, were deleted, or whose workflow is gone. A run's graph (`runs/<run>/graph.json`,
// workflows/shared.ts `blobKeys.runGraph`) has the same life and goes the same way.

const stateKey = /^runs\/([^/]+)\/(?:state\/[^/]+|graph)\.json$/;
const endedStatuses = new Set(['COMPLETED', 'ERROR', 'CANCELLED']);

/** How old a state must be before the sweep looks at it: its run's own clean-up goes first. */
export const stateGraceMs = 60 * 60 * 1000;

export interface StateSweepDeps {
  db: DB;
  blobs: BlobStore;
  /** Of these runs (short ids), the ones whose plan-run workflow is closed or does not exist. */
  workflowsGone: (runShortIds: string[]) => Promise<Set<string>>;
}

/** Deletes the browser states, older than the grace period, of runs that will not read them again. */
export async function sweepBrowserStates(
  deps: StateSweepDeps,
  now = new Date(),
): Promise<{ deleted: number; kept: number }> {
  const byRun = new Map<string, string[]>();
  for await (const blob of deps.blobs.list('runs/')) {
    const run = stateKey.exec(blob.key)?.[1];
    if (!run || now.getTime() - blob.lastModified.getTime() < stateGraceMs) continue;
    byRun.set(run, [...(byRun.get(run) ?? []), blob.key]);
  }
  const statuses = await runStatusesByShortId(deps.db, [...byRun.keys()]);
  const open = [...byRun.keys()].filter((run) => statuses.has(run) && !endedStatuses.has(statuses.get(run)!));
  // Only runs the database still calls open need Temporal: a terminated workflow never marked its run ended.
  const gone = open.length > 0 ? await deps.workflowsGone(open) : new Set<string>();
  let deleted = 0;
  let kept = 0;
  for (const [run, keys] of byRun) {
    const status = statuses.get(run);
    const done = status === undefined || endedStatuses.has(status) || gone.has(run);
    if (!done) {
      kept += keys.length;
      continue;
    }
    for (const key of keys) await deps.blobs.delete(key);
    deleted += keys.length;
  }
  return { deleted, kept };
}

/** Runs `sweepBrowserStates` now and then every `everyMs` until stopped; a failed sweep is logged and retried next time. */
export function startBrowserStateSweep(
  deps: StateSweepDeps & { logger: Logger },
  everyMs = 3600_000,
): () => Promise<void> {
  const sweep = () =>
    sweepBrowserStates(deps).then(
      (result) => result.deleted > 0 && deps.logger.info('browser states: swept', result),
      (err: unknown) => deps.logger.warn('browser states: sweep failed', { err }),
    );
  void sweep();
  const timer = setInterval(() => void sweep(), everyMs);
  timer.unref();
  return async () => clearInterval(timer);
}
