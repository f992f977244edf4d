// Git provider clients made from a project's integration row, and the process-wide cache of them. Apart from
// git-clients.ts because the service context (context.ts) carries a GitClients: this file imports no service.
import type { GitIntegrationRow } from '../db/queries/git-integrations.js';
import { GitHubClient } from '../git/github.js';
import { GitLabClient } from '../git/gitlab.js';
import type { GitProviderClient } from '../git/provider.js';

export function clientFromRow(row: GitIntegrationRow): GitProviderClient {
  const baseUrl = row.base_url ?? undefined;
  if (row.provider === 'gitlab') return new GitLabClient({ token: row.token!, baseUrl });
  const auth =
    row.auth === 'app'
      ? { kind: 'app' as const, appId: row.app_id!, privateKey: row.private_key! }
      : { kind: 'token' as const, token: row.token! };
  return new GitHubClient({ auth, baseUrl });
}

/**
 * Clients kept per integration for the life of a process (the worker's composition root makes one), so a
 * GitHub App's installation tokens, minted on first use and cached in memory, are reused across activities.
 * An integration edited since (new key, new token) gets a fresh client; its old tokens are dropped with it.
 */
export class GitClients {
  private readonly clients = new Map<string, { version: string; client: GitProviderClient }>();

  clientFor(row: GitIntegrationRow): GitProviderClient {
    const version = row.updated_at.toISOString();
    const cached = this.clients.get(row.id);
    if (cached?.version === version) return cached.client;
    const client = clientFromRow(row);
    this.clients.set(row.id, { version, client });
    return client;
  }
}
