import type { DB } from '../database.js';
import type { AuditActor, AuditEvent, AuditKind } from '../../domain/audit.js';
import { newId } from '../../ids.js';

export interface AuditWrite {
  projectId: string | null;
  kind: AuditKind;
  actor: AuditActor;
  subject?: string | null;
  details?: Record<string, unknown>;
  clientAddress?: string | null;
}

export async function insertAuditEvent(db: DB, event: AuditWrite): Promise<void> {
  await db
    .insertInto('audit_events')
    .values({
      id: newId(),
      project_id: event.projectId,
      kind: event.kind,
      actor_type: event.actor.type,
      actor_id: 'id' in event.actor ? event.actor.id : null,
      subject: event.subject ?? null,
      details: JSON.stringify(event.details ?? {}),
      client_address: event.clientAddress ?? null,
    })
    .execute();
}

export interface AuditFilter {
  kinds?: readonly AuditKind[];
  since?: Date;
  limit: number;
  offset: number;
}

/** A project's events, newest first (the id breaks ties between events of the same instant). */
export async function selectAuditEvents(
  db: DB,
  projectId: string,
  filter: AuditFilter,
): Promise<{ events: AuditEvent[]; total: number }> {
  let query = db.selectFrom('audit_events').where('project_id', '=', projectId);
  if (filter.kinds && filter.kinds.length > 0) query = query.where('kind', 'in', [...filter.kinds]);
  if (filter.since) query = query.where('created_at', '>=', filter.since);
  const [rows, count] = await Promise.all([
    query
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(filter.limit)
      .offset(filter.offset)
      .execute(),
    query.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    total: Number(count.n),
    events: rows.map((r) => ({
      kind: r.kind as AuditKind,
      actor: (r.actor_id === null ? { type: r.actor_type } : { type: r.actor_type, id: r.actor_id }) as AuditActor,
      subject: r.subject,
      details: typeof r.details === 'string' ? (JSON.parse(r.details) as Record<string, unknown>) : r.details,
      clientAddress: r.client_address,
      at: new Date(r.created_at),
    })),
  };
}

/** The project of an issued token, revoked or not: a sign-in with a revoked token is that project's business. */
export async function issuedTokenProject(
  db: DB,
  tokenHash: string,
): Promise<{ tokenId: string; projectId: string; revoked: boolean } | undefined> {
  const row = await db
    .selectFrom('api_tokens')
    .select(['id', 'project_id', 'revoked_at'])
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  return row && { tokenId: row.id, projectId: row.project_id, revoked: row.revoked_at !== null };
}

export async function tokenProjectId(db: DB, tokenId: string): Promise<string | undefined> {
  return (await db.selectFrom('api_tokens').select('project_id').where('id', '=', tokenId).executeTakeFirst())
    ?.project_id;
}
