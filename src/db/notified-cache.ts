import { LRUCache } from 'lru-cache';
import type { ChangeEvent } from './change-feed.js';
import { changeFeedOf, onLocalWrite, type DB } from './database.js';

export type Change = Record<string, unknown>;

export interface NotifiedCacheOptions<V> {
  /** The channel the database triggers notify with a JSON object naming what changed (`{ "runId": … }`). */
  channel: string;
  max: number;
  /** A bound on memory as well as entries: `maxSize` in the units `sizeOf` counts. */
  size?: { maxSize: number; sizeOf: (value: V) => number };
  /**
   * The tables entries are read from: an insert, update or delete of one of them through a watched handle drops
   * every entry as soon as the statement returns, so this process reads its own writes at once (the notification
   * follows the commit by milliseconds). Without it, only `forget` does that.
   */
  tables?: string[];
  /** Whether an entry read from what `change` names is now stale. */
  stale: (change: Change, value: V) => boolean;
  /**
   * Without it, values are cached only while the feed listens, so an entry is never older than the last change
   * to what it was read from. With it, values are also cached while the feed is not listening (connecting, or
   * after a drop), for at most this long.
   */
  fallbackTtlMs?: number;
}

/**
 * An in-process cache of database reads that database triggers keep exact: a change to what an entry was
 * read from notifies `channel` on commit, and the entry is dropped when the notification arrives (on PGlite,
 * before the writing statement returns; on Postgres, milliseconds after the commit, in every process). One
 * cache serves every database of the process: keys and ids are unique across them.
 */
export class NotifiedCache<V extends object> {
  readonly #options: NotifiedCacheOptions<V>;
  readonly #entries: LRUCache<string, V>;
  readonly #watched = new WeakSet<DB>();
  // Bumped by every drop: a read that was already under way when something changed must not store what it
  // read, which may be from before the change.
  #generation = 0;

  constructor(options: NotifiedCacheOptions<V>) {
    this.#options = options;
    this.#entries = new LRUCache<string, V>({
      max: options.max,
      ...(options.fallbackTtlMs !== undefined && { ttl: options.fallbackTtlMs }),
      ...(options.size && {
        maxSize: options.size.maxSize,
        sizeCalculation: (value: V) => Math.max(1, options.size!.sizeOf(value)),
      }),
    });
  }

  /** The cached value for `key`, else what `load` reads, kept when `keep` says it may be. */
  async read(
    db: DB,
    key: string,
    load: () => Promise<V | undefined>,
    keep: (value: V) => boolean = () => true,
  ): Promise<V | undefined> {
    const feed = this.#watch(db);
    const hit = this.#entries.get(key);
    if (hit) return hit;
    const generation = this.#generation;
    const heard = feed?.listening ?? false;
    const value = await load();
    const cacheable = heard || this.#options.fallbackTtlMs !== undefined;
    if (value && cacheable && generation === this.#generation && keep(value)) this.#entries.set(key, value);
    return value;
  }

  /** Drops the entries `stale` matches: after a write this process made, so its next read never races the notification. */
  forget(change: Change): void {
    this.#generation++;
    for (const [key, value] of this.#entries.entries()) {
      if (this.#options.stale(change, value)) this.#entries.delete(key);
    }
  }

  clear(): void {
    this.#generation++;
    this.#entries.clear();
  }

  #watch(db: DB) {
    const feed = changeFeedOf(db);
    if (feed && !this.#watched.has(db)) {
      this.#watched.add(db);
      feed.subscribe(this.#options.channel, (event) => this.#onChange(event));
      const tables = this.#options.tables;
      if (tables) onLocalWrite(db, (table) => tables.includes(table) && this.clear());
    }
    return feed;
  }

  #onChange(event: ChangeEvent): void {
    if (event.kind === 'reset') return this.clear();
    let change: unknown;
    try {
      change = JSON.parse(event.payload);
    } catch {
      change = undefined;
    }
    // A payload this version does not know: dropping everything is always safe.
    if (!change || typeof change !== 'object') return this.clear();
    this.forget(change as Change);
  }
}
