// Starting Git sync's workflow: after a test changes in Proctor (outbound) and after a push to the synced branch
// (inbound). Apart from git-sync.ts so the services that change steps (step-edits.ts, heal-proposals.ts) can call
// it without importing the file export. The workflow ids are business ids: a repeated request starts nothing new.
import { syncedTestCase } from '../db/queries/git-sync.js';
import { startWorkflow } from '../temporal/lifecycle.js';
import { workflowIds } from '../../workflows/shared.js';
import type { ServiceContext } from './context.js';

/**
 * Proposes the test case's file to its project's repository, when the project syncs with Git and the caller can
 * start workflows. A failure to start is logged, never thrown: the change itself is saved and stays the test, and
 * the next change proposes the file again.
 */
export async function requestTestCaseSync(deps: ServiceContext, testCaseId: string): Promise<boolean> {
  if (!deps.temporal) return false;
  try {
    const synced = await syncedTestCase(deps.db, testCaseId);
    if (!synced) return false;
    return await startWorkflow(deps.temporal, 'gitSync', {
      workflowId: workflowIds.gitSyncPropose(testCaseId, synced.stepsVersion),
      args: [{ kind: 'propose', projectId: synced.projectId, testCaseId }],
      summary: `Git sync: propose test ${testCaseId} (steps v${synced.stepsVersion})`,
    });
  } catch (err) {
    deps.logger?.warn('git sync not requested; the next change of the test proposes it again', { testCaseId, err });
    return false;
  }
}

/** Reads the synced folder at `ref` (a pushed commit of the synced branch) in the gitSync workflow. */
export async function requestFolderPull(
  deps: ServiceContext<'temporal'>,
  input: { projectId: string; ref: string },
): Promise<void> {
  await startWorkflow(deps.temporal, 'gitSync', {
    workflowId: workflowIds.gitSyncPull(input.projectId, input.ref),
    args: [{ kind: 'pull', ...input }],
    summary: `Git sync: read the folder at ${input.ref.slice(0, 12)}`,
  });
}
