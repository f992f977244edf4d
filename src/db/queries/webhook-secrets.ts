// The secrets an incoming webhook delivery may be signed with, found from what the delivery claims about itself
// (its repository; for a GitHub App, its App id) before anything about it is trusted.
import type { DB } from '../database.js';
import { openNullable } from '../secrets.js';
import type { GitProviderId } from '../../domain/git.js';

export interface WebhookSecretRow {
  projectId: string;
  secret: string;
  /** Set when the project reviews the repository the delivery names: the delivery is for that project. */
  reviewHandle: string | null;
}

/**
 * One statement whatever the answer, so whether a repository is configured does not show as an extra round trip.
 * Candidates: the integration of the project whose merge-request review is set up for `repository`, and (GitHub
 * Apps) the integrations of App `appId`; at most `limit`, the repository's first.
 */
export async function webhookSecretRows(
  db: DB,
  provider: GitProviderId,
  claims: { repository: string | null; appId: string | null },
  limit = 8,
): Promise<WebhookSecretRow[]> {
  const rows = await db
    .selectFrom('git_integrations as i')
    .leftJoin('merge_request_review_settings as s', (join) =>
      join
        .onRef('s.project_id', '=', 'i.project_id')
        .onRef('s.provider', '=', 'i.provider')
        .on('s.repository', '=', claims.repository ?? ''),
    )
    .select(['i.project_id', 'i.webhook_secret', 's.handle'])
    .where('i.provider', '=', provider)
    .where('i.webhook_secret', 'is not', null)
    .where((eb) =>
      eb.or([eb('s.id', 'is not', null), eb.and([eb('i.auth', '=', 'app'), eb('i.app_id', '=', claims.appId ?? '')])]),
    )
    .orderBy((eb) => eb.case().when('s.id', 'is not', null).then(0).else(1).end())
    .orderBy('i.created_at')
    .limit(limit)
    .execute();
  return Promise.all(
    rows.map(async (r) => ({
      projectId: r.project_id,
      secret: (await openNullable(db, r.webhook_secret))!,
      reviewHandle: r.handle ?? null,
    })),
  );
}
