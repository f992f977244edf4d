// The one GitLab project hook Proctor keeps per repository, shared by merge-request review (its events) and Git sync
// (push events). Saving either asks for the union of what both need, so saving one never switches off the other's
// events (GitLab's hook edit sets every event flag).
import { findGitSyncSettings, reviewsRepository } from '../db/queries/git-sync.js';
import type { GitLabHookEvent } from '../git/gitlab.js';
import type { ServiceContext } from './context.js';
import { ensureWebhookSecret, gitClientFor } from './git-clients.js';

const reviewEvents: GitLabHookEvent[] = ['merge_requests', 'notes', 'deployments', 'pipelines'];

/** Creates or refreshes the hook at `url` for `repository`; `saving` is the feature being saved (it counts as on). */
export async function ensureGitLabHook(
  deps: ServiceContext,
  projectId: string,
  repository: string,
  url: string,
  saving: 'review' | 'sync',
): Promise<string> {
  const client = await gitClientFor(deps, projectId, { provider: 'gitlab', repository });
  const secret = await ensureWebhookSecret(deps, projectId, 'gitlab');
  const sync = await findGitSyncSettings(deps.db, projectId);
  const syncs =
    saving === 'sync' || (sync?.provider === 'gitlab' && sync.repository.toLowerCase() === repository.toLowerCase());
  const reviews = saving === 'review' || (await reviewsRepository(deps.db, projectId, 'gitlab', repository));
  const events: GitLabHookEvent[] = [...(reviews ? reviewEvents : []), ...(syncs ? (['push'] as const) : [])];
  const hook = await client.ensureProjectWebhook(repository, { url, secret, events });
  return String(hook.id);
}
