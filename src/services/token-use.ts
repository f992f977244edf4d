// When a token was last used: written when it authenticates (an API call, a badge, a dashboard sign-in), at most
// once per token per interval, so a busy token costs one UPDATE a minute rather than one per request. The
// process remembers when it last wrote each token and skips the query until the interval has passed; the UPDATE
// itself only writes a row whose last use is older than the interval, so other processes add no writes either.
// A failed write is logged and never fails the request that used the token.
import type { DB } from '../db/database.js';
import { touchTokenLastUsed } from '../db/queries/api-tokens.js';
import type { Logger } from '../logger.js';

export const TOKEN_USE_INTERVAL_MS = 60_000;

/** Tokens remembered at most; past that the entries older than the interval are dropped (they would be written anyway). */
const maxRemembered = 10_000;

export class TokenUseRecorder {
  private readonly lastWritten = new Map<string, number>();
  private readonly intervalMs: number;
  private readonly clock: () => number;

  constructor(
    private readonly db: DB,
    opts: { intervalMs?: number; clock?: () => number } = {},
  ) {
    this.intervalMs = opts.intervalMs ?? TOKEN_USE_INTERVAL_MS;
    this.clock = opts.clock ?? Date.now;
  }

  /** Records a use of `tokenId` now, unless this process wrote it less than an interval ago. Never throws. */
  async record(tokenId: string, logger?: Logger): Promise<void> {
    const now = this.clock();
    const last = this.lastWritten.get(tokenId);
    if (last !== undefined && now - last < this.intervalMs) return;
    // Claimed before the query: concurrent requests of the same token do not all write. A failed write keeps the
    // claim too, so a struggling database is not asked again on every request.
    this.lastWritten.set(tokenId, now);
    if (this.lastWritten.size > maxRemembered) this.forgetOlderThan(now - this.intervalMs);
    try {
      await touchTokenLastUsed(this.db, tokenId, new Date(now), this.intervalMs);
    } catch (err) {
      logger?.warn('could not record when a token was last used', { tokenId, err });
    }
  }

  private forgetOlderThan(cutoff: number): void {
    for (const [id, at] of this.lastWritten) if (at <= cutoff) this.lastWritten.delete(id);
  }
}

const defaults = new WeakMap<DB, TokenUseRecorder>();

/** The recorder the deps name (tests inject one with their own clock), else the one of their database. */
export function tokenUseRecorder(deps: { db: DB; tokenUse?: TokenUseRecorder }): TokenUseRecorder {
  if (deps.tokenUse) return deps.tokenUse;
  let recorder = defaults.get(deps.db);
  if (!recorder) defaults.set(deps.db, (recorder = new TokenUseRecorder(deps.db)));
  return recorder;
}

/** Records that the token authenticated (see TokenUseRecorder). */
export const recordTokenUse = (
  deps: { db: DB; tokenUse?: TokenUseRecorder },
  tokenId: string,
  logger?: Logger,
): Promise<void> => tokenUseRecorder(deps).record(tokenId, logger);
