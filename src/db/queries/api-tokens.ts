import { LRUCache } from 'lru-cache';
import { changeFeedOf, type DB } from '../database.js';
import type { ChangeEvent } from '../change-feed.js';
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
 * How long this process trusts a token lookup when it cannot hear about changes. On Postgres every API process
 * listens to `proctor_token_changes`, which triggers notify when a token is revoked or deleted and when an
 * organization is suspended or lifted (migration 0013), whoever wrote it: `proctor admin` from a shell,
 * another replica, plain SQL. The entry is dropped when the notification arrives, milliseconds after the
 * commit. `revokeToken` / `setOrganizationSuspended` also forget at once in the process that called them, so
 * its next request never races the notification. The TTL remains the bound while the listening connection
 * is down (it reconnects; everything cached is dropped when it listens again).
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

const tokenChannel = 'proctor_token_changes';
const watched = new WeakSet<DB>();

/** Listens (once per database handle) for the changes the triggers announce. */
function watch(db: DB): void {
  if (watched.has(db)) return;
  watched.add(db);
  changeFeedOf(db)?.subscribe(tokenChannel, onTokenChange);
}

function onTokenChange(event: ChangeEvent): void {
  if (event.kind === 'reset') return forgetAllTokenOwners();
  let which: unknown;
  try {
    which = JSON.parse(event.payload);
  } catch {
    which = undefined;
  }
  if (which && typeof which === 'object') {
    const { tokenId, organizationId, projectId } = which as Record<string, unknown>;
    if (typeof tokenId === 'string') return forgetTokenOwners({ tokenId });
    if (typeof organizationId === 'string') return forgetTokenOwners({ organizationId });
    if (typeof projectId === 'string') return forgetTokenOwners({ projectId });
  }
  // A payload this version does not know: forgetting everything is always safe.
  forgetAllTokenOwners();
}

/** The owner of a presented token, or undefined for an unknown, revoked or malformed one. */
export async function findTokenOwner(db: DB, token: string): Promise<TokenOwner | undefined> {
  if (!Object.values(tokenPrefixes).some((p) => token.startsWith(p)) || token.length > 200) return undefined;
  watch(db);
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

/** Drops the cached lookups of one token, or of every token of an organization or project, after a change to them. */
export function forgetTokenOwners(which: { tokenId: string } | { organizationId: string } | { projectId: string }): void {
  generation++;
  const matches = (owner: TokenOwner) =>
    'tokenId' in which ? owner.tokenId === which.tokenId : 'organizationId' in which ? owner.organizationId === which.organizationId : owner.projectId === which.projectId;
  for (const [hash, owner] of owners.entries()) {
    if (matches(owner)) owners.delete(hash);
  }
}

function forgetAllTokenOwners(): void {
  generation++;
  owners.clear();
}
