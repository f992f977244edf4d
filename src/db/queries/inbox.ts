import type { Selectable } from 'kysely';
import type { DB } from '../database.js';
import type { InboxMessagesTable } from '../schema.js';
import { findProjectRow } from './project-rows.js';

export interface InboxMessageRow {
  id: string;
  projectId: string;
  to: string;
  from: string;
  subject: string;
  sizeBytes: number;
  blobKey: string;
  receivedAt: Date;
}

const columns = [
  'id',
  'project_id',
  'to_address',
  'from_address',
  'subject',
  'size_bytes',
  'blob_key',
  'received_at',
] as const;

function toRow(r: Pick<Selectable<InboxMessagesTable>, (typeof columns)[number]>): InboxMessageRow {
  return {
    id: r.id,
    projectId: r.project_id,
    to: r.to_address,
    from: r.from_address,
    subject: r.subject,
    sizeBytes: r.size_bytes,
    blobKey: r.blob_key,
    receivedAt: r.received_at,
  };
}

/** Registers an address for a project; an address already registered keeps its project (a named inbox is reused). */
export async function registerInboxAddress(db: DB, projectId: string, address: string): Promise<void> {
  await db
    .insertInto('inbox_addresses')
    .values({ address, project_id: projectId })
    .onConflict((oc) => oc.column('address').doNothing())
    .execute();
}

/** The project an address belongs to, if Proctor accepts mail for it. */
export async function inboxAddressOwner(db: DB, address: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('inbox_addresses')
    .select('project_id')
    .where('address', '=', address)
    .executeTakeFirst();
  return row?.project_id;
}

export async function insertInboxMessage(db: DB, message: InboxMessageRow & { expiresAt: Date }): Promise<void> {
  await db
    .insertInto('inbox_messages')
    .values({
      id: message.id,
      project_id: message.projectId,
      to_address: message.to,
      from_address: message.from,
      subject: message.subject,
      size_bytes: message.sizeBytes,
      blob_key: message.blobKey,
      received_at: message.receivedAt,
      expires_at: message.expiresAt,
    })
    .execute();
}

/** A project's mail, newest first, optionally to one address. */
export async function listInboxMessages(
  db: DB,
  projectId: string,
  filter: { to?: string; limit: number; offset?: number },
): Promise<InboxMessageRow[]> {
  let query = db.selectFrom('inbox_messages').select(columns).where('project_id', '=', projectId);
  if (filter.to) query = query.where('to_address', '=', filter.to);
  const rows = await query
    .orderBy('received_at', 'desc')
    .orderBy('id')
    .limit(filter.limit)
    .offset(filter.offset ?? 0)
    .execute();
  return rows.map(toRow);
}

/** Mail to one address, newest first: what a waiting step reads (the address is the run's, so no project filter). */
export async function mailTo(db: DB, to: string, limit = 20): Promise<InboxMessageRow[]> {
  const rows = await db
    .selectFrom('inbox_messages')
    .select(columns)
    .where('to_address', '=', to)
    .orderBy('received_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toRow);
}

export async function getInboxMessage(db: DB, projectId: string, id: string): Promise<InboxMessageRow | undefined> {
  const row = await findProjectRow(db, 'inbox_messages', projectId, 'id', id);
  return row && toRow(row);
}

/** Messages kept past their time, oldest first, a batch at a time. */
export async function expiredInboxMessages(
  db: DB,
  now: Date,
  limit = 500,
): Promise<Array<{ id: string; blobKey: string }>> {
  const rows = await db
    .selectFrom('inbox_messages')
    .select(['id', 'blob_key'])
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, blobKey: r.blob_key }));
}

export async function deleteInboxMessages(db: DB, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom('inbox_messages').where('id', 'in', ids).execute();
}

/** Run inboxes with no mail left that are older than the retention: nothing will read them again. */
export async function deleteStaleInboxAddresses(db: DB, before: Date, runAddressPattern: string): Promise<number> {
  const result = await db
    .deleteFrom('inbox_addresses')
    .where('created_at', '<', before)
    .where('address', 'like', runAddressPattern)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('inbox_messages')
            .select('id')
            .whereRef('inbox_messages.to_address', '=', 'inbox_addresses.address'),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
