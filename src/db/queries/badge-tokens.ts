import type { DB } from '../database.js';

/** A badge token as the dashboard lists it: never the token, only its first characters. */
export interface BadgeTokenRow {
  id: string;
  name: string;
  prefix: string;
  createdAt: Date;
}

/** The project's badge tokens that still work, newest first. */
export async function listActiveBadgeTokens(db: DB, projectId: string): Promise<BadgeTokenRow[]> {
  const rows = await db
    .selectFrom('api_tokens')
    .select(['id', 'name', 'prefix', 'created_at'])
    .where('project_id', '=', projectId)
    .where('kind', '=', 'badge')
    .where('revoked_at', 'is', null)
    .orderBy('created_at', 'desc')
    .execute();
  return rows.map((r) => ({ id: r.id, name: r.name, prefix: r.prefix, createdAt: new Date(r.created_at) }));
}

/** Whether `tokenId` is an active badge token of the project (an API token, or another project's, is not). */
export async function isActiveBadgeToken(db: DB, projectId: string, tokenId: string): Promise<boolean> {
  const row = await db
    .selectFrom('api_tokens')
    .select('id')
    .where('id', '=', tokenId)
    .where('project_id', '=', projectId)
    .where('kind', '=', 'badge')
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}
