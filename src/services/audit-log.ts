// The audit log as one operation: every service that makes a decision worth answering for (a sign-in, a token,
// an integration, a heal or a quarantine, the project's settings) records it here with who acted, and
// `GET /v1/audit-log` reads it back. Secrets never go in: a sign-in names the token's id (or, when no token
// matched, only that it failed), an integration change names the fields changed, not their values.
import {
  insertAuditEvent,
  issuedTokenProject,
  selectAuditEvents,
  type AuditFilter,
  type AuditWrite,
} from '../db/queries/audit-log.js';
import type { AuditActor, AuditEvent, AuditKind } from '../domain/audit.js';
import { hashToken } from '../ids.js';
import type { ServiceContext } from './context.js';

export type { AuditActor, AuditEvent, AuditKind };

export async function recordAudit({ db }: ServiceContext, event: AuditWrite): Promise<void> {
  await insertAuditEvent(db, event);
}

/** The actor of an API request: the token it came with. */
export const tokenActor = (tokenId: string): AuditActor => ({ type: 'token', id: tokenId });
/** The actor of a dashboard action: its session, named by the token that opened it. */
export const sessionActor = (tokenId: string): AuditActor => ({ type: 'session', id: tokenId });

export type SignInOutcome =
  { outcome: 'ok'; tokenId: string; projectId: string } | { outcome: 'invalid' | 'suspended' };

/**
 * Records a dashboard sign-in. A failure is the business of the project whose token was tried, when the token
 * was one it issued (revoked, or of a suspended organization); a made-up token belongs to no project.
 */
export async function recordSignIn(
  { db }: ServiceContext,
  token: string,
  result: SignInOutcome,
  clientAddress: string | null,
): Promise<void> {
  if (result.outcome === 'ok') {
    await recordAudit(
      { db },
      {
        projectId: result.projectId,
        kind: 'sign_in.succeeded',
        actor: sessionActor(result.tokenId),
        subject: result.tokenId,
        clientAddress,
      },
    );
    return;
  }
  const issued = token.length <= 200 ? await issuedTokenProject(db, hashToken(token.trim())) : undefined;
  const reason =
    result.outcome === 'suspended'
      ? 'organization suspended'
      : issued?.revoked
        ? 'token revoked'
        : issued
          ? 'not an API token'
          : 'unknown token';
  await recordAudit(
    { db },
    {
      projectId: issued?.projectId ?? null,
      kind: 'sign_in.failed',
      actor: { type: 'anonymous' },
      subject: issued?.tokenId ?? null,
      details: { reason },
      clientAddress,
    },
  );
}

export interface AuditLogQuery {
  kind?: AuditKind[];
  since?: Date;
  limit: number;
  offset: number;
}

export interface AuditEventView {
  kind: AuditKind;
  actor: AuditActor;
  subject: string | null;
  details: Record<string, unknown>;
  clientAddress: string | null;
  at: string;
}

/** The caller's project's events, newest first. */
export async function listAuditLog(
  { db }: ServiceContext,
  projectId: string,
  query: AuditLogQuery,
): Promise<{ events: AuditEventView[]; total: number }> {
  const filter: AuditFilter = { kinds: query.kind, since: query.since, limit: query.limit, offset: query.offset };
  const { events, total } = await selectAuditEvents(db, projectId, filter);
  return { total, events: events.map((e) => ({ ...e, at: e.at.toISOString() })) };
}
