// Throttles dashboard sign-ins: failed attempts are counted per client address and per token prefix (the first
// characters of the token tried, which `api_tokens.prefix` keeps too) over a sliding window. A caller over
// either limit is refused before its token is even looked at, so a blocked attacker learns nothing; a refused
// attempt is not counted, so the block lifts when the window slides past the failures that caused it.
// Successes reset nothing: an attacker holding one valid token must not be able to clear its own address's
// count between guesses at other projects' tokens. The counts live in Postgres (`sign_in_failures`), so every API
// process of an installation refuses the same callers, and a restart forgets nothing; rows older than the window
// are deleted as failures come in, so the table holds at most the last window's failures.
import type { DB } from '../db/database.js';
import { insertFailures, recentFailures, type FailureKind } from '../db/queries/sign-in-failures.js';
import type { ServiceContext } from './context.js';

export interface ThrottleLimits {
  perAddress: number;
  perPrefix: number;
  windowMs: number;
}

export const signInLimits: ThrottleLimits = { perAddress: 10, perPrefix: 5, windowMs: 15 * 60_000 };

/** How many characters of a token identify its prefix (as `api_tokens.prefix` stores it). */
export const tokenPrefixLength = 8;

export type ThrottleVerdict = { allowed: true } | { allowed: false; by: FailureKind; retryAfterSeconds: number };

export class SignInThrottle {
  constructor(
    private readonly db: DB,
    private readonly limits: ThrottleLimits = signInLimits,
    private readonly clock: () => number = Date.now,
  ) {}

  async check(address: string, token: string): Promise<ThrottleVerdict> {
    const now = this.clock();
    const addressWait = await this.waitFor('address', address, this.limits.perAddress, now);
    if (addressWait > 0) return { allowed: false, by: 'address', retryAfterSeconds: Math.ceil(addressWait / 1000) };
    const prefixWait = await this.waitFor('prefix', prefixOf(token), this.limits.perPrefix, now);
    if (prefixWait > 0) return { allowed: false, by: 'prefix', retryAfterSeconds: Math.ceil(prefixWait / 1000) };
    return { allowed: true };
  }

  async failed(address: string, token: string): Promise<void> {
    const now = this.clock();
    await insertFailures(
      this.db,
      [
        { kind: 'address', key: address },
        { kind: 'prefix', key: prefixOf(token) },
      ],
      new Date(now),
      new Date(now - this.limits.windowMs),
    );
  }

  /** Milliseconds until `key` may try again (when the oldest of its last `limit` failures leaves the window), or 0. */
  private async waitFor(kind: FailureKind, key: string, limit: number, now: number): Promise<number> {
    const recent = await recentFailures(this.db, kind, key, new Date(now - this.limits.windowMs), limit);
    return recent.length >= limit ? recent[limit - 1]!.getTime() + this.limits.windowMs - now : 0;
  }
}

const prefixOf = (token: string): string => token.trim().slice(0, tokenPrefixLength);

/** The throttle of an installation (its database). */
export const signInThrottle = ({ db }: ServiceContext): SignInThrottle => new SignInThrottle(db);
