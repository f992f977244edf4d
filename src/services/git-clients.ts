// The git side a review or a webhook needs of a project's integration: a client for its repository, and its
// webhook secret. Kept apart from the integrations' create/update/delete (git-integrations.ts) because reviews,
// issue export and webhooks use this part in both processes, and the worker keeps one GitClients for its life.
import { randomBytes } from 'node:crypto';
import {
  findGitIntegrationByProvider,
  gitIntegrationsWithWebhookSecret,
  setWebhookSecretIfMissing,
} from '../db/queries/git-integrations.js';
import type { GitHubClient } from '../git/github.js';
import type { GitLabClient } from '../git/gitlab.js';
import type { GitProviderClient } from '../git/provider.js';
import type { GitProviderId } from '../domain/git.js';
import { NotFoundError } from '../domain/errors.js';
import type { ServiceContext } from './context.js';
import { clientFromRow } from './git-client-cache.js';

export const providerName: Record<GitProviderId, string> = { github: 'GitHub', gitlab: 'GitLab' };

/** "No GitHub integration in this project": what a review of a repository says when nothing connects to it. */
class NoIntegrationError extends NotFoundError {
  constructor(provider: GitProviderId) {
    super(`${providerName[provider]} integration`);
    this.message = `No ${providerName[provider]} integration in this project`;
  }
}

/**
 * The client for the project's integration with `provider`, acting on `repository` (`owner/name`, or the GitLab
 * project path). NotFoundError "No GitHub integration in this project" when there is none. The GitLab client
 * also offers `ensureProjectWebhook`.
 */
export async function gitClientFor(
  deps: ServiceContext,
  projectId: string,
  target: { provider: 'gitlab'; repository: string },
): Promise<GitLabClient>;
export async function gitClientFor(
  deps: ServiceContext,
  projectId: string,
  target: { provider: 'github'; repository: string },
): Promise<GitHubClient>;
export async function gitClientFor(
  deps: ServiceContext,
  projectId: string,
  target: { provider: GitProviderId; repository: string },
): Promise<GitProviderClient>;
export async function gitClientFor(
  deps: ServiceContext,
  projectId: string,
  target: { provider: GitProviderId; repository: string },
): Promise<GitProviderClient> {
  const row = await findGitIntegrationByProvider(deps.db, projectId, target.provider);
  if (!row) throw new NoIntegrationError(target.provider);
  return deps.gitClients ? deps.gitClients.clientFor(row) : clientFromRow(row);
}

/** The webhook secret of the project's integration with `provider`, if it has one. */
export async function webhookSecretFor(
  { db }: ServiceContext,
  provider: GitProviderId,
  projectId: string,
): Promise<string | undefined> {
  return (await findGitIntegrationByProvider(db, projectId, provider))?.webhook_secret ?? undefined;
}

/**
 * Every stored webhook secret of `provider`, with its project. A delivery names no Proctor project (a GitHub App
 * has one webhook URL for all its installations), so the webhook handler checks the signature (GitHub:
 * `X-Hub-Signature-256`; GitLab: `X-Gitlab-Token`, in constant time) against each candidate; the projects whose
 * secret matches are the ones the delivery is for. No match: 401.
 */
export async function webhookSecretCandidates(
  { db }: ServiceContext,
  provider: GitProviderId,
): Promise<Array<{ projectId: string; secret: string }>> {
  return (await gitIntegrationsWithWebhookSecret(db, provider)).map((row) => ({
    projectId: row.project_id,
    secret: row.webhook_secret!,
  }));
}

/**
 * The project's webhook secret for `provider`, created (32 random bytes, hex) and stored on the integration when
 * it has none: what merge-request settings pass to `GitLabClient.ensureProjectWebhook` when they are saved.
 */
export async function ensureWebhookSecret(
  { db }: ServiceContext,
  projectId: string,
  provider: GitProviderId,
): Promise<string> {
  const row = await findGitIntegrationByProvider(db, projectId, provider);
  if (!row) throw new NoIntegrationError(provider);
  if (row.webhook_secret) return row.webhook_secret;
  // Two saves at once keep one secret: only the first write lands, both read it back.
  return setWebhookSecretIfMissing(db, row.id, randomBytes(32).toString('hex'));
}
