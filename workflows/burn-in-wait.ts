import { condition, patched, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { EndedBurnIn } from '../activities/burn-in-dependencies.js';
import { dbActivity } from './activity-options.js';

const db = proxyActivities<Activities>(dbActivity);

/** Histories from before this patch waited on one timer; newer runs also watch the dependencies' workflows. */
export const watchDependenciesPatch = 'burn-in-watches-dependencies';

/** How often a waiting dependent asks whether a dependency's burn-in has ended without telling it. */
export const dependencyWatchIntervalMs = 60 * 1000;

export interface DependencyWait {
  projectId: string;
  /** True once every dependency has recorded its steps or one has failed (signals, read by the caller). */
  done: () => boolean;
  /** The dependencies still waited for. */
  pending: () => string[];
  /** A dependency whose workflow ended after it stored COMPLETED but before it signalled: counts as recorded. */
  recordedMeanwhile: (testCaseId: string) => void;
  limitMs: number;
}

/**
 * Waits for the dependencies' signals, up to `limitMs`. Signals stay the way a dependent learns of a result; a
 * burn-in that is terminated, times out or fails for good never signals, so the wait also asks every minute
 * whether a pending dependency's workflow has closed (one short activity; signals still end the wait at once).
 * Returns whether the dependencies settled, or the dependency that ended without recording its steps.
 */
export async function waitForDependencies(wait: DependencyWait): Promise<'settled' | 'timed-out' | EndedBurnIn> {
  if (!patched(watchDependenciesPatch)) return (await condition(wait.done, wait.limitMs)) ? 'settled' : 'timed-out';
  // Workflow time (Date.now() is deterministic here), so the limit is the same hour as before.
  const deadline = Date.now() + wait.limitMs;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) return 'timed-out';
    if (await condition(wait.done, Math.min(dependencyWatchIntervalMs, left))) return 'settled';
    const ended = await db.endedDependencyBurnIns({ projectId: wait.projectId, testCaseIds: wait.pending() });
    // A signal that arrived meanwhile was sent before its sender closed: it says more than the closed status.
    if (wait.done()) return 'settled';
    for (const e of ended) {
      if (e.stored === 'COMPLETED') wait.recordedMeanwhile(e.testCaseId);
      else return e;
    }
    if (wait.done()) return 'settled';
  }
}

/** Why a dependent fails when its dependency's burn-in ended without telling it. */
export function endedDependencyReason(e: EndedBurnIn): string {
  if (e.stored === 'MISSING') return `dependency ${e.testCaseId} no longer exists`;
  if (e.stored === 'FAILED') return `dependency ${e.testCaseId} failed to generate its steps`;
  const how = e.workflowStatus === 'COMPLETED' ? 'ended' : `was ${e.workflowStatus.toLowerCase().replace('_', ' ')}`;
  return `dependency ${e.testCaseId} did not record its steps: its burn-in ${how}`;
}
