import { createMiddleware } from 'hono/factory';
import type { AppEnv } from './context.js';
import { ApiError } from './errors.js';
import { tokenOwner } from '../services/access.js';
import { recordTokenUse } from '../services/token-use.js';

/**
 * The caller's project from the Bearer token. Lookups are cached; a revocation or suspension applies to the
 * next request in the process that made it, and within milliseconds elsewhere (LISTEN/NOTIFY; see
 * TOKEN_CACHE_TTL_MS for the fallback).
 */
export const requireApiToken = createMiddleware<AppEnv>(async (c, next) => {
  const header = c.req.header('authorization');
  if (!header) {
    c.header('WWW-Authenticate', 'Bearer');
    throw new ApiError(401, 'Missing API token: send "Authorization: Bearer <token>"');
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const owner = match ? await tokenOwner(c.get('deps'), match[1]!) : undefined;
  if (!owner) {
    c.header('WWW-Authenticate', 'Bearer error="invalid_token"');
    throw new ApiError(401, 'Invalid API token');
  }
  if (owner.kind !== 'api') throw new ApiError(403, 'A badge token is only valid for GET /v1/badge.svg');
  if (owner.suspended) throw new ApiError(403, 'The organization of this project is suspended');
  c.set('caller', { projectId: owner.projectId, organizationId: owner.organizationId, tokenId: owner.tokenId });
  await recordTokenUse(c.get('deps'), owner.tokenId, c.get('logger'));
  await next();
});
