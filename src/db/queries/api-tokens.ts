import type { DB } from '../database.js';
import { NotifiedCache } from '../notified-cache.js';
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
 * How long this process trusts a token lookup when it cannot hear about changes. Every API process listens to
 * `proctor_token_changes`, which triggers notify when a token is revoked or deleted and when an organization
 * is suspended or lifted (migration 0013), whoever wrote it: `proctor admin` from a shell, another replica,
 * plain SQL. The entry is dropped when the notification arrives, milliseconds after the commit on Postgres.
 * `revokeToken` / `setOrganizationSuspended` also forget at once in the process that called them, so its next
 * request never races the notification. The TTL remains the bound while the listening connection is down (it
 * reconnects; everything cached is dropped when the connection drops and again when it listens).
 */
export const TOKEN_CACHE_TTL_MS = 30_000;

// Keyed by the token's SHA-256, so no token is kept in clear. Only found tokens are cached: a miss costs a
// query every time, but a token created a moment ago in another process works at once, and requests with
// made-up tokens cannot evict the real ones. The triggers of migration 0013 name the token, organization or
// project that changed.
const owners = new NotifiedCache<TokenOwner>({
  channel: 'proctor_token_changes',
  max: 10_000,
  fallbackTtlMs: TOKEN_CACHE_TTL_MS,
  stale: (change, owner) =>
    change.tokenId === owner.tokenId ||
    change.organizationId === owner.organizationId ||
    change.projectId === owner.projectId,
});

/** The owner of a presented token, or undefined for an unknown, revoked or malformed one. */
export async function findTokenOwner(db: DB, token: string): Promise<TokenOwner | undefined> {
  if (!Object.values(tokenPrefixes).some((p) => token.startsWith(p)) || token.length > 200) return undefined;
  const hash = hashToken(token);
  return owners.read(db, hash, () => lookUp(db, hash));
}

async function lookUp(db: DB, hash: string): Promise<TokenOwner | undefined> {
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
  return {
    tokenId: row.id,
    kind: row.kind,
    projectId: row.project_id,
    organizationId: row.organization_id,
    suspended: row.suspended_at !== null,
  };
}

/** Drops the cached lookups of one token, or of every token of an organization or project, after a change to them. */
export function forgetTokenOwners(
  which: { tokenId: string } | { organizationId: string } | { projectId: string },
): void {
  owners.forget(which);
}

/**
 * Notes that a token authenticated at `at`. The row is written only when its last use is older than `minGapMs`
 * (or unknown), so several API processes together still write at most once per token per gap. `last_used_at` is
 * not among the columns whose change notifies `proctor_token_changes` (migration 0013): cached lookups stay.
 */
export async function touchTokenLastUsed(db: DB, tokenId: string, at: Date, minGapMs: number): Promise<boolean> {
  const result = await db
    .updateTable('api_tokens')
    .set({ last_used_at: at })
    .where('id', '=', tokenId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', new Date(at.getTime() - minGapMs))]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
