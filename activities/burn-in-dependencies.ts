import { Context } from '@temporalio/activity';
import type { ActivityDeps } from './deps.js';
import { generationStatuses } from '../src/db/queries/execution.js';
import { closedWorkflows } from '../src/temporal/workflow-status.js';
import { workflowIds } from '../workflows/shared.js';

/** A dependency whose burn-in workflow has closed while a dependent waited for its signal. */
export interface EndedBurnIn {
  testCaseId: string;
  /** How its workflow closed: TERMINATED, TIMED_OUT, FAILED, CANCELLED, COMPLETED. */
  workflowStatus: string;
  /** Its generation status as stored (COMPLETED when it saved its steps before it was stopped), or MISSING. */
  stored: string;
}

/** The stored generation status of these test cases (the database in the worker; a map in workflow tests). */
export type StoredStatuses = (projectId: string, testCaseIds: string[]) => Promise<Record<string, string>>;

export function createBurnInDependencyActivities(deps: Pick<ActivityDeps, 'db'>) {
  return burnInWatchActivities((projectId, ids) => generationStatuses(deps.db, projectId, ids));
}

export function burnInWatchActivities(storedStatuses: StoredStatuses) {
  return {
    /**
     * Which of these dependencies' burn-ins have closed. A burn-in that is terminated (or times out) sends no
     * signal, so its waiting dependents ask this now and then rather than wait the full hour.
     */
    async endedDependencyBurnIns(input: { projectId: string; testCaseIds: string[] }): Promise<EndedBurnIn[]> {
      const closed = await closedWorkflows(
        Context.current().client,
        input.testCaseIds.map((id) => workflowIds.burnIn(id)),
      );
      const ended = input.testCaseIds.filter((id) => closed.has(workflowIds.burnIn(id)));
      if (ended.length === 0) return [];
      const stored = await storedStatuses(input.projectId, ended);
      return ended.map((id) => ({
        testCaseId: id,
        workflowStatus: closed.get(workflowIds.burnIn(id))!,
        stored: stored[id] ?? 'MISSING',
      }));
    },
  };
}
