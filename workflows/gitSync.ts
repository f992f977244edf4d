import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { GitSyncInput, GitSyncResult } from './git-sync-contract.js';

// Provider calls are retried (an outage, a rate limit); a refusal (no integration, credentials refused) is not,
// and every step of an activity is safe to repeat (src/services/git-sync.ts).
const { proposeTestCaseFile, pullRepositoryFolder } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute', maximumAttempts: 6 },
});

/** Git sync of one test's file or of the synced folder (workflows/git-sync-contract.ts). */
export async function gitSync(input: GitSyncInput): Promise<GitSyncResult> {
  if (input.kind === 'propose')
    return {
      kind: 'propose',
      ...(await proposeTestCaseFile({ projectId: input.projectId, testCaseId: input.testCaseId })),
    };
  return { kind: 'pull', ...(await pullRepositoryFolder({ projectId: input.projectId, ref: input.ref })) };
}
