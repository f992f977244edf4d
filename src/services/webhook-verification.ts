// Who may send a webhook delivery: decided before anything about it is trusted, recorded or answered. Only what
// finds the candidate secrets is read (the repository the payload names; for a GitHub App its App id), then the
// signature is checked against every candidate in constant time. No candidate (an unknown repository, a project
// without a webhook secret) is checked against a stand-in secret, so it costs the same and answers the same 401
// as a wrong or missing signature: a stranger learns nothing about which repositories this instance serves.
import { randomBytes } from 'node:crypto';
import { webhookSecretRows, type WebhookSecretRow } from '../db/queries/webhook-secrets.js';
import type { GitProviderId } from '../domain/git.js';
import { signatureMatches } from '../git/webhook-signatures.js';
import { repositoryOf } from '../git/webhook-events.js';
import type { ServiceContext } from './context.js';

/** What a delivery says about itself, read without trusting it. */
export interface DeliveryClaims {
  /** The parsed body, or undefined when it is not JSON (then only an App id in a header can name a secret). */
  payload: unknown;
  repository: string | null;
  appId: string | null;
}

export interface VerifiedSender {
  projectId: string;
  /** The project's merge-request review handle when it reviews the named repository; null for an App-level match. */
  reviewHandle: string | null;
  /** The project keeps its tests in the named repository (Git sync). */
  syncs: boolean;
}

/** The same answer for a bad signature, a missing one and a delivery no secret is configured for. */
export const unauthorizedMessage: Record<GitProviderId, string> = {
  github: 'Unauthorized: X-Hub-Signature-256 is missing or does not match',
  gitlab: 'Unauthorized: X-Gitlab-Token is missing or does not match',
};

// Per process, never stored or sent: a delivery matching it would have to guess 32 random bytes.
const standInSecret = randomBytes(32).toString('hex');
const appIdPattern = /^\d{1,20}$/;

function appIdOf(payload: unknown, header: string | undefined): string | null {
  if (header && appIdPattern.test(header)) return header;
  // A GitHub App's `ping` names its App in `hook.app_id` (the installation target headers do too, when sent).
  const fromHook = (payload as { hook?: { app_id?: unknown } } | null)?.hook?.app_id;
  const id = typeof fromHook === 'number' || typeof fromHook === 'string' ? String(fromHook) : '';
  return appIdPattern.test(id) ? id : null;
}

/** Parses the body once (the caller reuses the payload) and picks out the claims that find candidate secrets. */
export function readClaims(provider: GitProviderId, body: string, githubAppId?: string): DeliveryClaims {
  let payload: unknown;
  try {
    payload = JSON.parse(body);
  } catch {
    payload = undefined;
  }
  return {
    payload,
    repository: payload === undefined ? null : repositoryOf(provider, payload),
    appId: provider === 'github' ? appIdOf(payload, githubAppId) : null,
  };
}

/**
 * The sender whose secret authenticates the delivery, or null. Every candidate is checked (no early exit), and a
 * repository's own project wins over an App-level match, since only it carries the review settings.
 */
export async function verifySender(
  { db }: ServiceContext,
  provider: GitProviderId,
  claims: DeliveryClaims,
  body: Uint8Array,
  signature: string | undefined,
): Promise<VerifiedSender | null> {
  const rows: WebhookSecretRow[] =
    claims.repository || claims.appId ? await webhookSecretRows(db, provider, claims) : [];
  const candidates = rows.length ? rows : [{ projectId: '', secret: standInSecret, reviewHandle: null, syncs: false }];
  const matches = candidates.map((row) => signatureMatches(provider, row.secret, body, signature ?? ''));
  const found =
    rows.find((row, i) => matches[i] && (row.reviewHandle !== null || row.syncs)) ?? rows.find((_, i) => matches[i]);
  return found ? { projectId: found.projectId, reviewHandle: found.reviewHandle, syncs: found.syncs } : null;
}
