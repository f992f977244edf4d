import type { DB } from '../database.js';

/** A badge token as the dashboard lists it: never the token, only its first characters. */
export interface BadgeTokenRow {
  id: string;
  name: string;
  prefix: string;
  createdAt: Date;
  /** When it last showed a badge (written at most once a minute, src/services/token-use.ts); null: never. */
  lastUsedAt: Date | null;
}

const activeBadgeTokens = (db: DB, projectId: string) =>
  db
    .selectFrom('api_tokens')
    .select(['id', 'name', 'prefix', 'created_at', 'last_used_at'])
    .where('project_id', '=', projectId)
    .where('kind', '=', 'badge')
    .where('revoked_at', 'is', null);

const toRow = (r: {
  id: string;
  name: string;
  prefix: string;
  created_at: Date | string;
  last_used_at: Date | string | null;
}): BadgeTokenRow => ({
  id: r.id,
  name: r.name,
  prefix: r.prefix,
  createdAt: new Date(r.created_at),
  lastUsedAt: r.last_used_at ? new Date(r.last_used_at) : null,
});

/** The project's badge tokens that still work, newest first. */
export async function listActiveBadgeTokens(db: DB, projectId: string): Promise<BadgeTokenRow[]> {
  return (await activeBadgeTokens(db, projectId).orderBy('created_at', 'desc').execute()).map(toRow);
}

/** One active badge token of the project, or undefined. */
export async function findActiveBadgeToken(
  db: DB,
  projectId: string,
  tokenId: string,
): Promise<BadgeTokenRow | undefined> {
  const row = await activeBadgeTokens(db, projectId).where('id', '=', tokenId).executeTakeFirst();
  return row && toRow(row);
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
