import { LRUCache } from 'lru-cache';
import type { DB } from '../database.js';
import type { TokenKind } from '../schema.js';
import { hashesEqual, hashToken, tokenPrefixes } from '../../ids.js';

export interface TokenOwner {
  tokenId: string;
  kind: TokenKind;
  projectId: string;
  organizationId: string;
  suspended: boolean;
}

/**
 * How long this process trusts a token lookup. Revoking a token or suspending an organization through
 * `revokeToken` / `setOrganizationSuspended` forgets the entries at once in the process that called them;
 * any other process (the API while `proctor admin` revokes from a shell, or a second API replica) keeps
 * accepting the token, or ignoring the suspension, for at most this long.
 */
export const TOKEN_CACHE_TTL_MS = 30_000;

// Keyed by the token's SHA-256, so no token is kept in clear. Only found tokens are cached: a miss costs a
// query every time, but a token created a moment ago in another process works at once, and requests with
// made-up tokens cannot evict the real ones. Hashes, token ids and organization ids are unique across
// databases, so one cache serves every database of the process (the tests open many).
const owners = new LRUCache<string, TokenOwner>({ max: 10_000, ttl: TOKEN_CACHE_TTL_MS });
// Bumped by every forget: a lookup that was already reading when a token was revoked must not put the
// pre-revocation row back into the cache.
let generation = 0;

/** The owner of a presented token, or undefined for an unknown, revoked or malformed one. */
export async function findTokenOwner(db: DB, token: string): Promise<TokenOwner | undefined> {
  if (!Object.values(tokenPrefixes).some((p) => token.startsWith(p)) || token.length > 200) return undefined;
  const hash = hashToken(token);
  const cached = owners.get(hash);
  if (cached) return cached;
  const startedAt = generation;
  const row = await db
    .selectFrom('api_tokens as t')
    .innerJoin('projects as p', 'p.id', 't.project_id')
    .innerJoin('organizations as o', 'o.id', 'p.organization_id')
    .select(['t.id', 't.kind', 't.token_hash', 't.project_id', 'p.organization_id', 'o.suspended_at'])
    .where('t.token_hash', '=', hash)
    .where('t.revoked_at', 'is', null)
    .executeTakeFirst();
  // The index found the row by hash; the constant-time comparison keeps the final check free of timing hints.
  if (!row || !hashesEqual(row.token_hash, hash)) return undefined;
  const owner: TokenOwner = {
    tokenId: row.id,
    kind: row.kind,
    projectId: row.project_id,
    organizationId: row.organization_id,
    suspended: row.suspended_at !== null,
  };
  if (generation === startedAt) owners.set(hash, owner);
  return owner;
}

/** Drops the cached lookups of one token, or of every token of an organization, after a change to them. */
export function forgetTokenOwners(which: { tokenId: string } | { organizationId: string }): void {
  generation++;
  for (const [hash, owner] of owners.entries()) {
    if ('tokenId' in which ? owner.tokenId === which.tokenId : owner.organizationId === which.organizationId) owners.delete(hash);
  }
}
