// A push webhook for Git sync: the synced branch moved, so its folder is read at the new head (the gitSync
// workflow). Called by webhooks.ts once the delivery's signature has named the project; answers at once.
import { findGitSyncSettings } from '../db/queries/git-sync.js';
import type { GitProviderId } from '../domain/git.js';
import { pushedBranch } from '../git/push-events.js';
import { repositoryOf } from '../git/webhook-events.js';
import type { ServiceContext } from './context.js';
import { requestFolderPull } from './git-sync-requests.js';
import type { VerifiedSender } from './webhook-verification.js';

export { isPushEvent } from '../git/push-events.js';

export async function syncPush(
  deps: ServiceContext<'temporal'>,
  provider: GitProviderId,
  sender: VerifiedSender,
  payload: unknown,
): Promise<{ status: 200 | 202; message: string }> {
  const repository = repositoryOf(provider, payload);
  const settings = sender.syncs ? await findGitSyncSettings(deps.db, sender.projectId) : undefined;
  if (!settings || settings.provider !== provider || settings.repository.toLowerCase() !== repository?.toLowerCase())
    return { status: 200, message: 'Ignored: no Git sync is set up for this repository' };
  const pushed = pushedBranch(payload);
  if (!pushed) return { status: 200, message: 'Ignored: not a push of a commit to a branch' };
  if (pushed.branch !== settings.branch)
    return { status: 200, message: `Ignored: a push to ${pushed.branch}; Git sync follows ${settings.branch}` };
  // One workflow per project and commit: a redelivery of the same push starts nothing new.
  await requestFolderPull(deps, { projectId: sender.projectId, ref: pushed.head });
  return { status: 202, message: `Reading ${settings.folder} at ${pushed.head.slice(0, 12)}` };
}
