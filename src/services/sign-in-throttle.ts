// Throttles dashboard sign-ins: failed attempts are counted per client address and per token prefix (the first
// characters of the token tried, which `api_tokens.prefix` keeps too) over a sliding window. A caller over
// either limit is refused before its token is even looked at, so a blocked attacker learns nothing; a refused
// attempt is not counted, so the block lifts when the window slides past the failures that caused it.
// Successes reset nothing: an attacker holding one valid token must not be able to clear its own address's
// count between guesses at other projects' tokens. Kept in memory, bounded (the oldest keys go first), one per
// database (so per installation within a process; each API replica counts for itself).
import type { DB } from '../db/database.js';

export interface ThrottleLimits {
  perAddress: number;
  perPrefix: number;
  windowMs: number;
  /** Keys kept per kind; past it the least recently failed key is forgotten. */
  maxKeys: number;
}

export const signInLimits: ThrottleLimits = { perAddress: 10, perPrefix: 5, windowMs: 15 * 60_000, maxKeys: 10_000 };

/** How many characters of a token identify its prefix (as `api_tokens.prefix` stores it). */
export const tokenPrefixLength = 8;

export type ThrottleVerdict = { allowed: true } | { allowed: false; by: 'address' | 'prefix'; retryAfterSeconds: number };

class FailureWindow {
  private readonly failures = new Map<string, number[]>();
  constructor(
    private readonly limit: number,
    private readonly limits: ThrottleLimits,
  ) {}

  /** Milliseconds until `key` may try again, or 0. */
  waitFor(key: string, now: number): number {
    const recent = this.recent(key, now);
    return recent.length >= this.limit ? recent[recent.length - this.limit]! + this.limits.windowMs - now : 0;
  }

  fail(key: string, now: number): void {
    const recent = this.recent(key, now);
    recent.push(now);
    // Only the last `limit` failures decide anything; a key moves to the back of the eviction order.
    this.failures.delete(key);
    this.failures.set(key, recent.slice(-this.limit));
    while (this.failures.size > this.limits.maxKeys) this.failures.delete(this.failures.keys().next().value!);
  }

  get size(): number {
    return this.failures.size;
  }

  private recent(key: string, now: number): number[] {
    const kept = (this.failures.get(key) ?? []).filter((at) => at > now - this.limits.windowMs);
    if (kept.length === 0) this.failures.delete(key);
    return kept;
  }
}

export class SignInThrottle {
  private readonly byAddress: FailureWindow;
  private readonly byPrefix: FailureWindow;

  constructor(
    limits: ThrottleLimits = signInLimits,
    private readonly clock: () => number = Date.now,
  ) {
    this.byAddress = new FailureWindow(limits.perAddress, limits);
    this.byPrefix = new FailureWindow(limits.perPrefix, limits);
  }

  check(address: string, token: string): ThrottleVerdict {
    const now = this.clock();
    const addressWait = this.byAddress.waitFor(address, now);
    if (addressWait > 0) return { allowed: false, by: 'address', retryAfterSeconds: Math.ceil(addressWait / 1000) };
    const prefixWait = this.byPrefix.waitFor(prefixOf(token), now);
    if (prefixWait > 0) return { allowed: false, by: 'prefix', retryAfterSeconds: Math.ceil(prefixWait / 1000) };
    return { allowed: true };
  }

  failed(address: string, token: string): void {
    const now = this.clock();
    this.byAddress.fail(address, now);
    this.byPrefix.fail(prefixOf(token), now);
  }

  /** Keys held (for the bound's test). */
  get keys(): { addresses: number; prefixes: number } {
    return { addresses: this.byAddress.size, prefixes: this.byPrefix.size };
  }
}

const prefixOf = (token: string): string => token.trim().slice(0, tokenPrefixLength);

const throttles = new WeakMap<DB, SignInThrottle>();

/** The throttle of an installation (its database) in this process. */
export function signInThrottle(db: DB): SignInThrottle {
  let throttle = throttles.get(db);
  if (!throttle) throttles.set(db, (throttle = new SignInThrottle()));
  return throttle;
}
