// Files a project issue in the project's GitHub or GitLab through its Git integration. The issue's body ends with a
// hidden marker carrying the fingerprint, so a second export finds the one filed before instead of filing again.
import { findGitIntegrationByProvider } from '../db/queries/git-integrations.js';
import { findIssue, updateIssue, type IssueRow } from '../db/queries/issues.js';
import { InvalidError, NotFoundError } from '../domain/errors.js';
import type { GitProviderId } from '../domain/git.js';
import { gitClientFor } from './git-clients.js';
import type { ServiceContext } from './context.js';

export const issueMarker = (fingerprint: string): string => `<!-- proctor-issue:${fingerprint} -->`;

function issueBody(r: IssueRow, appUrl: string): string {
  return [
    `**${r.kind}** issue (${r.severity}) found by Proctor on \`${r.page}\`.`,
    '',
    `> ${r.title}`,
    '',
    `- Seen ${r.occurrences} time(s), first ${r.first_seen_at.toISOString()}, last ${r.last_seen_at.toISOString()}`,
    `- Pages: ${r.pages.map((p) => `\`${p}\``).join(', ') || '-'}`,
    `- Example: ${r.sample_url}`,
    `- In Proctor: ${appUrl}/issues/${r.id}`,
    '',
    issueMarker(r.fingerprint),
  ].join('\n');
}

/** The integration to use: the one asked for, else the project's GitHub one, else its GitLab one. */
async function providerFor(
  deps: ServiceContext,
  projectId: string,
  asked: GitProviderId | undefined,
): Promise<GitProviderId> {
  if (asked) return asked;
  for (const provider of ['github', 'gitlab'] as const)
    if (await findGitIntegrationByProvider(deps.db, projectId, provider)) return provider;
  throw new NotFoundError('Git integration', 'connect one with POST /v1/git-integrations first');
}

export async function exportIssue(
  deps: ServiceContext & { appUrl: string },
  projectId: string,
  id: string,
  target: { repository: string; provider?: GitProviderId },
): Promise<{ url: string; created: boolean }> {
  if (!/^[\w.-]+(\/[\w.-]+)+$/.test(target.repository))
    throw new InvalidError('repository: owner/repo (GitHub) or the project path (GitLab)');
  const row = await findIssue(deps.db, projectId, id);
  if (!row) throw new NotFoundError('Issue');
  const provider = await providerFor(deps, projectId, target.provider);
  const client = await gitClientFor(deps, projectId, { provider, repository: target.repository });
  const existing = await client.findIssue(target.repository, issueMarker(row.fingerprint));
  const { url } = existing
    ? { url: existing }
    : await client.createIssue(target.repository, {
        title: `[Proctor] ${row.title}`.slice(0, 250),
        body: issueBody(row, deps.appUrl),
      });
  await updateIssue(deps.db, row.id, { exported: { provider, url } });
  return { url, created: !existing };
}
