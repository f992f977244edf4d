// Webhook deliveries from GitHub and GitLab: verify, record once, signal the merge request's review workflow.
// Nothing slow happens here (no provider call, no review work): the provider gets its answer within a second.
import { createHash, timingSafeEqual } from 'node:crypto';
import { Webhooks } from '@octokit/webhooks';
import type { DB } from '../db/database.js';
import {
  findSettingsByRepository,
  markDeliveryProcessed,
  mergeRequestsAtCommit,
  noteDeliveryFailure,
  pendingDeliveries,
  recordDelivery,
  recordDeployment,
  saveDeliverySignals,
  upsertMergeRequestHead,
  type PendingSignal,
} from '../db/queries/merge-requests.js';
import type { GitProviderId, MergeRequestRef } from '../domain/git.js';
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
  | { status: 400 | 401 | 404; message: string };

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
 * deployment is stored, the signals for the affected merge requests' workflows are stored with the delivery, and
 * then sent (signal-with-start). If Temporal does not take them the delivery is still accepted (202): neither
 * provider redelivers by itself, and GitLab disables a hook that keeps failing. `resendPendingDeliveries` sends
 * them once the engine is back, and so does a manual redelivery; the workflow drops an event it already has.
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
  const signals: PendingSignal[] = targets.map(({ number, event }) => ({
    projectId,
    ref: { provider, repository, number } satisfies MergeRequestRef,
    event: { ...event, deliveryId: delivery.deliveryId } as MergeRequestEvent,
  }));
  await saveDeliverySignals(deps.db, provider, delivery.deliveryId, signals);
  const sent = await sendSignals(deps, provider, delivery.deliveryId, signals);
  if (!sent) {
    return { status: 202, message: `Recorded; the workflow engine is unavailable, so ${signals.length} merge request review(s) will be signalled when it is back`, signalled: 0 };
  }
  return { status: 202, message: targets.length ? `Signalled ${targets.length} merge request review(s)` : 'Recorded; no open merge request is affected', signalled: targets.length };
}

/** Sends a delivery's signals and marks it processed; false (noted on the delivery) when Temporal did not take them all. */
async function sendSignals(deps: WebhookDeps, provider: GitProviderId, deliveryId: string, signals: PendingSignal[]): Promise<boolean> {
  try {
    for (const { projectId, ref, event } of signals) await signalMergeRequestReview(deps.temporal, { projectId, ref }, event);
  } catch (err) {
    deps.logger.warn('webhook delivery not signalled yet; it is sent again when the workflow engine is back', { provider, deliveryId, err });
    await noteDeliveryFailure(deps.db, provider, deliveryId, err instanceof Error ? err.message : String(err));
    return false;
  }
  await markDeliveryProcessed(deps.db, provider, deliveryId);
  return true;
}

/**
 * Sends the signals of accepted deliveries that did not reach Temporal (received at least `olderThanMs` ago, so a
 * delivery still being handled is left to its request), oldest first; stops at the first failure, since the
 * engine is then still away. Returns how many deliveries it completed.
 */
export async function resendPendingDeliveries(deps: WebhookDeps, opts: { olderThanMs?: number } = {}): Promise<number> {
  let done = 0;
  for (const pending of await pendingDeliveries(deps.db, opts.olderThanMs ?? 10_000)) {
    if (!(await sendSignals(deps, pending.provider, pending.deliveryId, pending.signals))) break;
    done++;
  }
  if (done > 0) deps.logger.info('webhook deliveries signalled after the workflow engine came back', { deliveries: done });
  return done;
}

/** `resendPendingDeliveries` every `everyMs` in the API process; returns the stop. Runs never overlap. */
export function startDeliveryResender(deps: WebhookDeps, everyMs = 30_000): () => Promise<void> {
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    running ??= resendPendingDeliveries(deps)
      .catch((err: unknown) => deps.logger.warn('resending webhook deliveries failed', { err }))
      .finally(() => (running = undefined));
  }, everyMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
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
