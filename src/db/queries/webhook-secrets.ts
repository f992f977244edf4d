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
  /** The project keeps its tests in the repository the delivery names (Git sync): its pushes are for it. */
  syncs: boolean;
}

/**
 * One statement whatever the answer, so whether a repository is configured does not show as an extra round trip.
 * Candidates: the integration of the project whose merge-request review or Git sync is set up for `repository`,
 * and (GitHub Apps) the integrations of App `appId`; at most `limit`, the repository's first.
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
    .leftJoin('git_sync_settings as g', (join) =>
      join
        .onRef('g.project_id', '=', 'i.project_id')
        .onRef('g.provider', '=', 'i.provider')
        .on((eb) => eb(eb.fn('lower', ['g.repository']), '=', (claims.repository ?? '').toLowerCase())),
    )
    .select(['i.project_id', 'i.webhook_secret', 's.handle', 'g.project_id as synced'])
    .where('i.provider', '=', provider)
    .where('i.webhook_secret', 'is not', null)
    .where((eb) =>
      eb.or([
        eb('s.id', 'is not', null),
        eb('g.project_id', 'is not', null),
        eb.and([eb('i.auth', '=', 'app'), eb('i.app_id', '=', claims.appId ?? '')]),
      ]),
    )
    .orderBy((eb) =>
      eb.case().when('s.id', 'is not', null).then(0).when('g.project_id', 'is not', null).then(0).else(1).end(),
    )
    .orderBy('i.created_at')
    .limit(limit)
    .execute();
  return Promise.all(
    rows.map(async (r) => ({
      projectId: r.project_id,
      secret: (await openNullable(db, r.webhook_secret))!,
      reviewHandle: r.handle ?? null,
      syncs: r.synced !== null,
    })),
  );
}
