// Rows of merge-request review: settings, webhook deliveries, merge requests' heads and deployments, posted comments.
import { sql } from 'kysely';
import type { DB } from '../database.js';
import type { GitProviderId, MergeRequestRef } from '../../domain/git.js';
import type { MergeRequestEvent } from '../../../workflows/merge-request-review-contract.js';

/**
 * Records a delivery once. `fresh` is false for a delivery seen before; `processed` says whether its signals all
 * reached Temporal (an unprocessed one is processed again when the provider redelivers it).
 */
export async function recordDelivery(
  db: DB,
  row: { provider: GitProviderId; deliveryId: string; event: string; projectId: string | null },
): Promise<{ fresh: boolean; processed: boolean }> {
  const inserted = await db
    .insertInto('webhook_deliveries')
    .values({ provider: row.provider, delivery_id: row.deliveryId, event: row.event, project_id: row.projectId })
    .onConflict((oc) => oc.columns(['provider', 'delivery_id']).doNothing())
    .returning('delivery_id')
    .executeTakeFirst();
  if (inserted) return { fresh: true, processed: false };
  const existing = await db
    .selectFrom('webhook_deliveries')
    .select('processed_at')
    .where('provider', '=', row.provider)
    .where('delivery_id', '=', row.deliveryId)
    .executeTakeFirstOrThrow();
  return { fresh: false, processed: existing.processed_at !== null };
}

export async function markDeliveryProcessed(db: DB, provider: GitProviderId, deliveryId: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ processed_at: sql`now()`, last_error: null })
    .where('provider', '=', provider)
    .where('delivery_id', '=', deliveryId)
    .execute();
}

/** A signal a delivery is to send to one merge request's review workflow. */
export interface PendingSignal {
  projectId: string;
  ref: MergeRequestRef;
  event: MergeRequestEvent;
}

/** Stored before they are sent: a delivery whose signals did not all reach Temporal is sent again later. */
export async function saveDeliverySignals(
  db: DB,
  provider: GitProviderId,
  deliveryId: string,
  signals: PendingSignal[],
): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ signals: JSON.stringify(signals) })
    .where('provider', '=', provider)
    .where('delivery_id', '=', deliveryId)
    .execute();
}

export async function noteDeliveryFailure(
  db: DB,
  provider: GitProviderId,
  deliveryId: string,
  error: string,
): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), last_error: error.slice(0, 1_000) }))
    .where('provider', '=', provider)
    .where('delivery_id', '=', deliveryId)
    .execute();
}

/** Accepted deliveries whose signals have not all been sent, oldest first, received at least `olderThanMs` ago. */
export async function pendingDeliveries(
  db: DB,
  olderThanMs: number,
  limit = 50,
): Promise<{ provider: GitProviderId; deliveryId: string; signals: PendingSignal[] }[]> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select(['provider', 'delivery_id', 'signals'])
    .where('processed_at', 'is', null)
    .where('signals', 'is not', null)
    // The database's clock, which set `received_at`.
    .where('received_at', '<', sql<Date>`now() - make_interval(secs => ${olderThanMs / 1000})`)
    .orderBy('received_at')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    provider: r.provider as GitProviderId,
    deliveryId: r.delivery_id,
    signals: r.signals as PendingSignal[],
  }));
}

export async function countDeliveries(db: DB, provider: GitProviderId): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('provider', '=', provider)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function upsertMergeRequestHead(
  db: DB,
  row: MergeRequestRef & { projectId: string; headSha: string; state: string },
): Promise<void> {
  await db
    .insertInto('merge_requests')
    .values({
      provider: row.provider,
      repository: row.repository,
      number: row.number,
      project_id: row.projectId,
      head_sha: row.headSha,
      state: row.state,
    })
    .onConflict((oc) =>
      oc
        .columns(['provider', 'repository', 'number'])
        .doUpdateSet({ head_sha: row.headSha, state: row.state, project_id: row.projectId, updated_at: sql`now()` }),
    )
    .execute();
}

/** Open merge requests whose head is `sha` (GitLab's deployment events give a short sha: a prefix matches). */
export async function mergeRequestsAtCommit(
  db: DB,
  provider: GitProviderId,
  repository: string,
  sha: string,
): Promise<number[]> {
  const rows = await db
    .selectFrom('merge_requests')
    .select('number')
    .where('provider', '=', provider)
    .where('repository', '=', repository)
    .where('state', '!=', 'closed')
    .where(sha.length >= 40 ? sql<boolean>`head_sha = ${sha}` : sql<boolean>`starts_with(head_sha, ${sha})`)
    .execute();
  return rows.map((r) => r.number);
}

export async function recordDeployment(
  db: DB,
  row: { provider: GitProviderId; repository: string; sha: string; environment: string; url: string },
): Promise<void> {
  await db
    .insertInto('merge_request_deployments')
    .values(row)
    .onConflict((oc) => oc.columns(['provider', 'repository', 'sha', 'environment']).doUpdateSet({ url: row.url }))
    .execute();
}

/** Environment -> URL of the successful deployments of a commit (a short sha recorded by GitLab matches its prefix). */
export async function deploymentsOf(
  db: DB,
  ref: Pick<MergeRequestRef, 'provider' | 'repository'>,
  sha: string,
): Promise<Record<string, string>> {
  const rows = await db
    .selectFrom('merge_request_deployments')
    .select(['environment', 'url'])
    .where('provider', '=', ref.provider)
    .where('repository', '=', ref.repository)
    .where(sql<boolean>`starts_with(${sha}, sha)`)
    .orderBy('created_at')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.environment, r.url]));
}

export async function postedComment(db: DB, key: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('merge_request_comments')
    .select('comment_id')
    .where('key', '=', key)
    .executeTakeFirst();
  return row?.comment_id;
}

export async function rememberComment(db: DB, key: string, commentId: string): Promise<void> {
  await db
    .insertInto('merge_request_comments')
    .values({ key, comment_id: commentId })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
}

/** The project's name, as a review's comments show it. */
export async function projectName(db: DB, projectId: string): Promise<string> {
  return (await db.selectFrom('projects').select('name').where('id', '=', projectId).executeTakeFirstOrThrow()).name;
}
