import { createMiddleware } from 'hono/factory';
import { hashesEqual, hashToken, tokenPrefixes } from '../ids.js';
import type { AppEnv } from './context.js';
import { ApiError } from './errors.js';
import type { DB } from '../db/database.js';

export interface TokenOwner {
  tokenId: string;
  kind: 'api' | 'badge';
  projectId: string;
  organizationId: string;
  suspended: boolean;
}

/** Looks a presented token up by its SHA-256; the stored hash is compared in constant time. */
export async function findTokenOwner(db: DB, token: string): Promise<TokenOwner | undefined> {
  if (!Object.values(tokenPrefixes).some((p) => token.startsWith(p)) || token.length > 200) return undefined;
  const hash = hashToken(token);
  const row = await db
    .selectFrom('api_tokens as t')
    .innerJoin('projects as p', 'p.id', 't.project_id')
    .innerJoin('organizations as o', 'o.id', 'p.organization_id')
    .select(['t.id', 't.kind', 't.token_hash', 't.project_id', 'p.organization_id', 'o.suspended_at'])
    .where('t.token_hash', '=', hash)
    .where('t.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row || !hashesEqual(row.token_hash, hash)) return undefined;
  return {
    tokenId: row.id,
    kind: row.kind,
    projectId: row.project_id,
    organizationId: row.organization_id,
    suspended: row.suspended_at !== null,
  };
}

export const requireApiToken = createMiddleware<AppEnv>(async (c, next) => {
  const header = c.req.header('authorization');
  if (!header) {
    c.header('WWW-Authenticate', 'Bearer');
    throw new ApiError(401, 'Missing API token: send "Authorization: Bearer <token>"');
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const owner = match ? await findTokenOwner(c.get('deps').db, match[1]!) : undefined;
  if (!owner) {
    c.header('WWW-Authenticate', 'Bearer error="invalid_token"');
    throw new ApiError(401, 'Invalid API token');
  }
  if (owner.kind !== 'api') throw new ApiError(403, 'A badge token is only valid for GET /v1/badge.svg');
  if (owner.suspended) throw new ApiError(403, 'The organization of this project is suspended');
  c.set('caller', { projectId: owner.projectId, organizationId: owner.organizationId, tokenId: owner.tokenId });
  await next();
});
