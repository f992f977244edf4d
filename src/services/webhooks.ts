// Webhook deliveries from GitHub and GitLab: verify, record once, signal the merge request's review workflow.
// Nothing slow happens here (no provider call, no review work): the provider gets its answer within a second.
import type { DB } from '../db/database.js';
import {
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
import {
  mentionEvent,
  parseGitHubDelivery,
  parseGitLabDelivery,
  type MergeRequestEventBody,
  type ParsedDelivery,
} from '../git/webhook-events.js';
import { readClaims, unauthorizedMessage, verifySender } from './webhook-verification.js';
import { isPushEvent, syncPush } from './git-sync-webhook.js';
import { signalMergeRequestReview } from '../temporal/merge-request-lifecycle.js';
import type { MergeRequestEvent } from '../../workflows/merge-request-review-contract.js';
import type { ServiceContext } from './context.js';
import { webhookDeliveries } from '../metrics.js';

export interface Delivery {
  deliveryId: string | undefined;
  event: string | undefined;
  /** The raw body, exactly as received: GitHub's signature is over these bytes. */
  body: Uint8Array;
  /** GitHub: `X-Hub-Signature-256`; GitLab: `X-Gitlab-Token`. */
  signature: string | undefined;
  /** GitHub: `X-GitHub-Hook-Installation-Target-ID` when the target type is `integration` (an App's id). */
  appId?: string;
}

export type DeliveryOutcome =
  | { status: 202; message: string; signalled: number }
  | { status: 200; message: string }
  | { status: 400 | 401; message: string };

const maxDeliveryIdLength = 200;

/**
 * One delivery. First who sent it (`verifySender`): a bad or missing signature, and a repository no project
 * reviews, are the same 401 with nothing recorded, logged or signalled, `ping` included. Then a delivery id seen
 * and processed before is acknowledged (200) and not processed again; otherwise the delivery is recorded, the
 * merge request's head or the deployment is stored, the signals for the affected merge requests' workflows are
 * stored with the delivery, and then sent (signal-with-start). If Temporal does not take them the delivery is
 * still accepted (202): neither provider redelivers by itself, and GitLab disables a hook that keeps failing.
 * `resendPendingDeliveries` sends them once the engine is back, and so does a manual redelivery; the workflow
 * drops an event it already has.
 */
export async function handleDelivery(
  deps: ServiceContext<'temporal' | 'logger'>,
  provider: GitProviderId,
  delivery: Delivery,
): Promise<DeliveryOutcome> {
  const outcome = await judgeDelivery(deps, provider, delivery);
  webhookDeliveries.inc({ provider, outcome: outcomeLabels[outcome.status] });
  return outcome;
}

/** The metric's word for each answer (200: a ping, a duplicate, or nothing to review). */
const outcomeLabels = { 202: 'accepted', 200: 'ignored', 400: 'invalid', 401: 'unauthorized' } as const;

async function judgeDelivery(
  deps: ServiceContext<'temporal' | 'logger'>,
  provider: GitProviderId,
  delivery: Delivery,
): Promise<DeliveryOutcome> {
  const claims = readClaims(provider, new TextDecoder().decode(delivery.body), delivery.appId);
  const sender = await verifySender(deps, provider, claims, delivery.body, delivery.signature);
  if (!sender) return { status: 401, message: unauthorizedMessage[provider] };

  // Authenticated from here on: the sender holds the secret, so telling it what is wrong reveals nothing.
  const { payload, repository } = claims;
  if (payload === undefined) return { status: 400, message: 'The webhook body is not JSON' };
  if (!delivery.event)
    return {
      status: 400,
      message: `Missing the ${provider === 'github' ? 'X-GitHub-Event' : 'X-Gitlab-Event'} header`,
    };
  if (provider === 'github' && delivery.event === 'ping') return { status: 200, message: 'pong' };
  if (isPushEvent(provider, delivery.event))
    return { signalled: 0, ...(await syncPush(deps, provider, sender, payload)) };
  // An App-level match for a repository no project of that App reviews (or an event naming none): nothing to do.
  if (sender.reviewHandle === null || !repository)
    return { status: 200, message: 'Ignored: no merge-request review is configured for this repository' };
  if (!delivery.deliveryId || delivery.deliveryId.length > maxDeliveryIdLength) {
    const header = provider === 'github' ? 'X-GitHub-Delivery' : 'Idempotency-Key or X-Gitlab-Event-UUID';
    return {
      status: 400,
      message: `Missing the delivery id header (${header}), or longer than ${maxDeliveryIdLength} characters`,
    };
  }

  const parsed =
    provider === 'github' ? parseGitHubDelivery(delivery.event, payload) : parseGitLabDelivery(delivery.event, payload);
  if (parsed.kind === 'ignored') return { status: 200, message: `Ignored: ${parsed.reason}` };

  const projectId = sender.projectId;
  const seen = await recordDelivery(deps.db, {
    provider,
    deliveryId: delivery.deliveryId,
    event: delivery.event,
    projectId,
  });
  if (seen.processed) return { status: 200, message: `Delivery ${delivery.deliveryId} was already processed` };

  const targets = await eventsFor(deps.db, provider, repository, projectId, parsed, sender.reviewHandle);
  const signals: PendingSignal[] = targets.map(({ number, event }) => ({
    projectId,
    ref: { provider, repository, number } satisfies MergeRequestRef,
    event: { ...event, deliveryId: delivery.deliveryId } as MergeRequestEvent,
  }));
  await saveDeliverySignals(deps.db, provider, delivery.deliveryId, signals);
  const sent = await sendSignals(deps, provider, delivery.deliveryId, signals);
  if (!sent) {
    return {
      status: 202,
      message: `Recorded; the workflow engine is unavailable, so ${signals.length} merge request review(s) will be signalled when it is back`,
      signalled: 0,
    };
  }
  return {
    status: 202,
    message: targets.length
      ? `Signalled ${targets.length} merge request review(s)`
      : 'Recorded; no open merge request is affected',
    signalled: targets.length,
  };
}

/** Sends a delivery's signals and marks it processed; false (noted on the delivery) when Temporal did not take them all. */
async function sendSignals(
  deps: ServiceContext<'temporal' | 'logger'>,
  provider: GitProviderId,
  deliveryId: string,
  signals: PendingSignal[],
): Promise<boolean> {
  try {
    for (const { projectId, ref, event } of signals)
      await signalMergeRequestReview(deps.temporal, { projectId, ref }, event);
  } catch (err) {
    deps.logger.warn('webhook delivery not signalled yet; it is sent again when the workflow engine is back', {
      provider,
      deliveryId,
      err,
    });
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
export async function resendPendingDeliveries(
  deps: ServiceContext<'temporal' | 'logger'>,
  opts: { olderThanMs?: number } = {},
): Promise<number> {
  let done = 0;
  for (const pending of await pendingDeliveries(deps.db, opts.olderThanMs ?? 10_000)) {
    if (!(await sendSignals(deps, pending.provider, pending.deliveryId, pending.signals))) break;
    done++;
  }
  if (done > 0)
    deps.logger.info('webhook deliveries signalled after the workflow engine came back', { deliveries: done });
  return done;
}

/** `resendPendingDeliveries` every `everyMs` in the API process; returns the stop. Runs never overlap. */
export function startDeliveryResender(
  deps: ServiceContext<'temporal' | 'logger'>,
  everyMs = 30_000,
): () => Promise<void> {
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
      await upsertMergeRequestHead(db, {
        provider,
        repository,
        number: parsed.number,
        projectId,
        headSha: parsed.event.head.sha,
        state: parsed.open ? 'open' : 'closed',
      });
      return [{ number: parsed.number, event: parsed.event }];
    case 'deployment': {
      // Stored first: a merge request whose head is recorded later reads it when its workflow moves to that head.
      await recordDeployment(db, {
        provider,
        repository,
        sha: parsed.sha,
        environment: parsed.environment,
        url: parsed.url,
      });
      const numbers = await mergeRequestsAtCommit(db, provider, repository, parsed.sha);
      return numbers.map((number) => ({
        number,
        event: { type: 'deployment', sha: parsed.sha, environment: parsed.environment, url: parsed.url },
      }));
    }
    case 'mention': {
      const event = mentionEvent(parsed, handle);
      if (!event) return [];
      if (parsed.head)
        await upsertMergeRequestHead(db, {
          provider,
          repository,
          number: parsed.number,
          projectId,
          headSha: parsed.head.sha,
          state: 'open',
        });
      return [{ number: parsed.number, event }];
    }
  }
}
