// Webhook deliveries from GitHub and GitLab: verify, record once, signal the merge request's review workflow.
// Nothing slow happens here (no provider call, no review work): the provider gets its answer within a second.
import { createHash, timingSafeEqual } from 'node:crypto';
import { Webhooks } from '@octokit/webhooks';
import type { DB } from '../db/database.js';
import {
  findSettingsByRepository,
  markDeliveryProcessed,
  mergeRequestsAtCommit,
  recordDelivery,
  recordDeployment,
  upsertMergeRequestHead,
} from '../db/queries/merge-requests.js';
import type { GitProviderId, MergeRequestRef } from '../git/provider.js';
import { mentionEvent, parseGitHubDelivery, parseGitLabDelivery, repositoryOf, type MergeRequestEventBody, type ParsedDelivery } from '../git/webhook-events.js';
import { webhookSecretFor } from './git-integrations.js';
import { signalMergeRequestReview } from '../temporal/merge-request-lifecycle.js';
import type { TemporalTarget } from '../temporal/lifecycle.js';
import type { Logger } from '../logger.js';
import type { MergeRequestEvent } from '../../workflows/shared.js';

export interface WebhookDeps {
  db: DB;
  temporal: TemporalTarget;
  logger: Logger;
}

export interface Delivery {
  deliveryId: string | undefined;
  event: string | undefined;
  /** The raw body, exactly as received: the signature is over these bytes. */
  body: string;
  /** GitHub: `X-Hub-Signature-256`; GitLab: `X-Gitlab-Token`. */
  signature: string | undefined;
}

export type DeliveryOutcome =
  | { status: 202; message: string; signalled: number }
  | { status: 200; message: string }
  | { status: 400 | 401 | 404 | 503; message: string };

/** Equal strings in time independent of where they differ (digests first, so lengths never leak either). */
function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** Checked against the project's Git integration's webhook secret: GitHub signs the body with it, GitLab sends it. */
async function verified(deps: WebhookDeps, provider: GitProviderId, projectId: string, delivery: Delivery): Promise<boolean> {
  const secret = await webhookSecretFor(deps.db, provider, projectId);
  if (!delivery.signature || !secret) return false;
  if (provider === 'gitlab') return sameSecret(delivery.signature, secret);
  return new Webhooks({ secret }).verify(delivery.body, delivery.signature).catch(() => false);
}

/**
 * One delivery: 401 with nothing recorded when the signature is wrong; a delivery id seen and processed before is
 * acknowledged (200) and not processed again; otherwise the delivery is recorded, the merge request's head or the
 * deployment is stored, and each affected merge request's workflow is signalled (signal-with-start). If Temporal
 * does not take a signal the answer is 503 and the delivery stays unprocessed, so the provider's redelivery
 * processes it (the workflow drops an event it already has).
 */
export async function handleDelivery(deps: WebhookDeps, provider: GitProviderId, delivery: Delivery): Promise<DeliveryOutcome> {
  let payload: unknown;
  try {
    payload = JSON.parse(delivery.body);
  } catch {
    return { status: 400, message: 'The webhook body is not JSON' };
  }
  if (!delivery.event) return { status: 400, message: `Missing the ${provider === 'github' ? 'X-GitHub-Event' : 'X-Gitlab-Event'} header` };
  if (provider === 'github' && delivery.event === 'ping') return { status: 200, message: 'pong' };
  const repository = repositoryOf(provider, payload);
  if (!repository) return { status: 400, message: 'The webhook payload names no repository' };
  const settings = await findSettingsByRepository(deps.db, provider, repository);
  if (!settings) return { status: 404, message: `No merge-request review is configured for ${provider} repository ${repository}` };
  if (!(await verified(deps, provider, settings.project_id, delivery))) {
    return { status: 401, message: provider === 'github' ? 'X-Hub-Signature-256 does not match the payload' : 'X-Gitlab-Token does not match' };
  }
  if (!delivery.deliveryId) return { status: 400, message: `Missing the delivery id header (${provider === 'github' ? 'X-GitHub-Delivery' : 'Idempotency-Key or X-Gitlab-Event-UUID'})` };

  const parsed = provider === 'github' ? parseGitHubDelivery(delivery.event, payload) : parseGitLabDelivery(delivery.event, payload);
  if (parsed.kind === 'ignored') return { status: 200, message: `Ignored: ${parsed.reason}` };

  const projectId = settings.project_id;
  const seen = await recordDelivery(deps.db, { provider, deliveryId: delivery.deliveryId, event: delivery.event, projectId });
  if (seen.processed) return { status: 200, message: `Delivery ${delivery.deliveryId} was already processed` };

  const targets = await eventsFor(deps.db, provider, repository, projectId, parsed, settings.handle);
  const logger = deps.logger.child({ provider, repository, deliveryId: delivery.deliveryId });
  try {
    for (const { number, event } of targets) {
      const ref: MergeRequestRef = { provider, repository, number };
      await signalMergeRequestReview(deps.temporal, { projectId, ref }, { ...event, deliveryId: delivery.deliveryId } as MergeRequestEvent);
    }
  } catch (err) {
    logger.warn('webhook delivery not signalled; the provider will redeliver it', { err });
    return { status: 503, message: 'The delivery was recorded but could not be handed to the workflow engine; redeliver it' };
  }
  await markDeliveryProcessed(deps.db, provider, delivery.deliveryId);
  return { status: 202, message: targets.length ? `Signalled ${targets.length} merge request review(s)` : 'Recorded; no open merge request is affected', signalled: targets.length };
}

/** Which merge requests an event concerns, storing what later events and workflows read (heads, deployments). */
async function eventsFor(
  db: DB,
  provider: GitProviderId,
  repository: string,
  projectId: string,
  parsed: Exclude<ParsedDelivery, { kind: 'ignored' }>,
  handle: string,
): Promise<{ number: number; event: MergeRequestEventBody }[]> {
  switch (parsed.kind) {
    case 'mergeRequest':
      await upsertMergeRequestHead(db, { provider, repository, number: parsed.number, projectId, headSha: parsed.event.head.sha, state: parsed.open ? 'open' : 'closed' });
      return [{ number: parsed.number, event: parsed.event }];
    case 'deployment': {
      // Stored first: a merge request whose head is recorded later reads it when its workflow moves to that head.
      await recordDeployment(db, { provider, repository, sha: parsed.sha, environment: parsed.environment, url: parsed.url });
      const numbers = await mergeRequestsAtCommit(db, provider, repository, parsed.sha);
      return numbers.map((number) => ({ number, event: { type: 'deployment', sha: parsed.sha, environment: parsed.environment, url: parsed.url } }));
    }
    case 'mention': {
      const event = mentionEvent(parsed, handle);
      if (!event) return [];
      if (parsed.head) await upsertMergeRequestHead(db, { provider, repository, number: parsed.number, projectId, headSha: parsed.head.sha, state: 'open' });
      return [{ number: parsed.number, event }];
    }
  }
}
