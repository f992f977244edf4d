// Git sync's provider calls (the gitSync workflow): thin, the work is in the services.
import { Context } from '@temporalio/activity';
import { proposeTestCaseFile } from '../src/services/git-sync.js';
import { requestTestCaseSync } from '../src/services/git-sync-requests.js';
import { pullRepositoryFolder } from '../src/services/git-sync-inbound.js';
import type { ActivityDeps } from './deps.js';

export function createGitSyncActivities(deps: ActivityDeps) {
  return {
    proposeTestCaseFile: (input: { projectId: string; testCaseId: string }) => proposeTestCaseFile(deps, input),
    pullRepositoryFolder: (input: { projectId: string; ref: string }) => pullRepositoryFolder(deps, input),
  };
}

/**
 * From inside an activity (a burn-in saving its steps): starts the test's git sync with the activity's own Temporal
 * client (the worker's service context has none). Its workflow id is per steps version, so a retry starts nothing new.
 * The activity's context is read only when the project does sync: a project without Git sync (most) and an activity
 * function called outside Temporal (the e2e tests call executeTest directly) never touch it.
 */
export const proposeInGit = (deps: ActivityDeps, testCaseId: string) =>
  requestTestCaseSync(
    {
      ...deps,
      temporal: {
        get taskQueue() {
          return Context.current().info.taskQueue;
        },
        get: async () => Context.current().client,
      },
    },
    testCaseId,
  );
