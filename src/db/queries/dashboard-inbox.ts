import type { DB } from '../database.js';
import { listInboxMessages, type InboxMessageRow } from './inbox.js';

// The dashboard's inbox page: a page of the project's mail (optionally to one address) and how much there is.

export async function dashboardInboxPage(
  db: DB,
  projectId: string,
  filter: { to?: string; limit: number; offset: number },
): Promise<{ rows: InboxMessageRow[]; total: number }> {
  let count = db
    .selectFrom('inbox_messages')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('project_id', '=', projectId);
  if (filter.to) count = count.where('to_address', '=', filter.to);
  const { n } = await count.executeTakeFirstOrThrow();
  return { rows: await listInboxMessages(db, projectId, filter), total: Number(n) };
}
