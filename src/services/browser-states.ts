import type { DB } from '../db/database.js';
import { discoveryStatusesByShortId } from '../db/queries/discoveries.js';
import { runStatusesByShortId } from '../db/queries/run-states.js';
import { endedDiscoveryStatuses } from '../domain/discovery-run.js';
import type { Logger } from '../logger.js';
import type { BlobStore } from '../storage/blob-store.js';
import { workflowIds } from '../../workflows/shared.js';

// Browser states (cookies, storage: often a signed-in session) that outlive what they were stored for:
// - a resume-from dependency's state, `runs/<run>/state/<test case>.json`, read by its dependents and deleted by the
//   plan run when it ends; the run's graph (`runs/<run>/graph.json`, `blobKeys.runGraph`) has the same life;
// - a discovery's resume-from state, `discoveries/<discovery>/state.json` (workflows/discovery-contract.ts), read by
//   every page visit and deleted by the discovery's `finishDiscovery` when it ends.
// A workflow that was terminated, or whose worker lost the blob store at that moment, never gets to that clean-up,
// and a deleted application takes its runs' and discoveries' rows but not their blobs: this sweep deletes the states
// whose owner has ended, was deleted, or whose workflow is gone.

interface Owner {
  prefix: string;
  /** The owner's short id, from the key of one of its states (no match: not a state). */
  key: RegExp;
  statuses: (db: DB, shortIds: string[]) => Promise<Map<string, string>>;
  ended: ReadonlySet<string>;
  workflowId: (shortId: string) => string;
}

const owners: Owner[] = [
  {
    prefix: 'runs/',
    key: /^runs\/([^/]+)\/(?:state\/[^/]+|graph)\.json$/,
    statuses: runStatusesByShortId,
    ended: new Set(['COMPLETED', 'ERROR', 'CANCELLED']),
    workflowId: workflowIds.planRun,
  },
  {
    prefix: 'discoveries/',
    key: /^discoveries\/([^/]+)\/state\.json$/,
    statuses: discoveryStatusesByShortId,
    ended: new Set(endedDiscoveryStatuses),
    workflowId: workflowIds.discovery,
  },
];

/** How old a state must be before the sweep looks at it: its owner's own clean-up goes first. */
export const stateGraceMs = 60 * 60 * 1000;

export interface StateSweepDeps {
  db: DB;
  blobs: BlobStore;
  /** Of these workflow ids (`run:<id>`, `discovery:<id>`), the ones whose workflow is closed or does not exist. */
  workflowsGone: (workflowIds: string[]) => Promise<Set<string>>;
}

/** Deletes the browser states, older than the grace period, of runs and discoveries that will not read them again. */
export async function sweepBrowserStates(
  deps: StateSweepDeps,
  now = new Date(),
): Promise<{ deleted: number; kept: number }> {
  let deleted = 0;
  let kept = 0;
  for (const owner of owners) {
    const result = await sweepOwner(deps, owner, now);
    deleted += result.deleted;
    kept += result.kept;
  }
  return { deleted, kept };
}

async function sweepOwner(deps: StateSweepDeps, owner: Owner, now: Date): Promise<{ deleted: number; kept: number }> {
  const byOwner = new Map<string, string[]>();
  for await (const blob of deps.blobs.list(owner.prefix)) {
    const id = owner.key.exec(blob.key)?.[1];
    if (!id || now.getTime() - blob.lastModified.getTime() < stateGraceMs) continue;
    byOwner.set(id, [...(byOwner.get(id) ?? []), blob.key]);
  }
  const statuses = await owner.statuses(deps.db, [...byOwner.keys()]);
  const open = [...byOwner.keys()].filter((id) => statuses.has(id) && !owner.ended.has(statuses.get(id)!));
  // Only owners the database still calls open need Temporal: a terminated workflow never marked its row ended.
  const gone = open.length > 0 ? await deps.workflowsGone(open.map(owner.workflowId)) : new Set<string>();
  let deleted = 0;
  let kept = 0;
  for (const [id, keys] of byOwner) {
    const status = statuses.get(id);
    const done = status === undefined || owner.ended.has(status) || gone.has(owner.workflowId(id));
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
