import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

/**
 * What a subscriber hears: a notification on its channel, or `reset` when the feed has just (re)started
 * listening. Notifications sent while the feed was not listening are lost, so on `reset` a subscriber drops
 * whatever it derived from the database before.
 */
export type ChangeEvent = { kind: 'notify'; payload: string } | { kind: 'reset' };
export type ChangeHandler = (event: ChangeEvent) => void;

export interface ChangeFeed {
  /** Starts listening on `channel` (connecting on the first subscription); returns the unsubscribe. */
  subscribe(channel: string, handler: ChangeHandler): () => void;
  /** True while every subscribed channel is being listened to: until then, and after a drop, events may be missed. */
  readonly listening: boolean;
  close(): Promise<void>;
}

const retryDelaysMs = [100, 500, 2_000, 5_000];

/**
 * Postgres LISTEN on a connection of its own: a pooled connection goes back to the pool after each query,
 * and its LISTEN with it. If the connection drops, the feed reconnects (100 ms, then up to every 5 s) and
 * sends `reset` once it listens again.
 */
export function createChangeFeed(url: string, warn: (msg: string) => void = () => {}): ChangeFeed {
  const handlers = new Map<string, Set<ChangeHandler>>();
  let client: pg.Client | undefined;
  let connecting: Promise<void> | undefined;
  let listening = false;
  let closed = false;
  let attempt = 0;
  let retry: NodeJS.Timeout | undefined;

  const emit = (channel: string, event: ChangeEvent) => {
    for (const handler of handlers.get(channel) ?? []) handler(event);
  };
  const resetAll = () => {
    for (const channel of handlers.keys()) emit(channel, { kind: 'reset' });
  };
  const quote = (channel: string) => `"${channel.replaceAll('"', '""')}"`;

  const lost = (c: pg.Client, err?: Error) => {
    if (client !== c) return;
    client = undefined;
    const wasListening = listening;
    listening = false;
    c.end().catch(() => {});
    if (closed) return;
    // From now on changes go unheard: what was derived before must not outlive the outage either.
    if (wasListening) resetAll();
    if (err) warn(`database change feed lost: ${err.message}`);
    const delay = retryDelaysMs[Math.min(attempt++, retryDelaysMs.length - 1)]!;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, delay);
    // Not a reason to keep the process alive: without the feed, caches fall back to their TTL.
    retry.unref();
  };

  const connect = (): Promise<void> =>
    (connecting ??= (async () => {
      const c = new pg.Client({ connectionString: url });
      client = c;
      c.on('error', (err) => lost(c, err));
      c.on('end', () => lost(c));
      c.on('notification', (n) => emit(n.channel, { kind: 'notify', payload: n.payload ?? '' }));
      try {
        await c.connect();
        for (const channel of handlers.keys()) await c.query(`listen ${quote(channel)}`);
        if (client !== c) return;
        attempt = 0;
        listening = true;
        resetAll();
      } catch (err) {
        lost(c, err as Error);
      }
    })().finally(() => {
      connecting = undefined;
    }));

  return {
    subscribe(channel, handler) {
      if (closed) throw new Error('change feed is closed');
      const unsubscribe = addHandler(handlers, channel, handler, () => {
        // A new channel on a live connection: listening to it may miss what happens until LISTEN returns.
        if (client && listening && !connecting) {
          listening = false;
          const c = client;
          c.query(`listen ${quote(channel)}`).then(
            () => {
              if (client !== c) return;
              listening = true;
              emit(channel, { kind: 'reset' });
            },
            (err: Error) => lost(c, err),
          );
        }
      });
      if (!client && !retry) void connect();
      return unsubscribe;
    },
    get listening() {
      return listening;
    },
    async close() {
      closed = true;
      listening = false;
      clearTimeout(retry);
      await connecting;
      const c = client;
      client = undefined;
      await c?.end().catch(() => {});
    },
  };
}

/**
 * The same feed on PGlite, in the process that owns it: its notifications are delivered when the writing
 * statement returns, so even this process's own writes are heard before it reads again.
 */
export function createPgliteChangeFeed(pglite: PGlite): ChangeFeed {
  const handlers = new Map<string, Set<ChangeHandler>>();
  const ready = new Set<string>();
  const pending: Promise<unknown>[] = [];
  let closed = false;
  return {
    subscribe(channel, handler) {
      if (closed) throw new Error('change feed is closed');
      return addHandler(handlers, channel, handler, (set) => {
        const listened = pglite
          .listen(channel, (payload) => {
            for (const h of set) h({ kind: 'notify', payload });
          })
          .then(() => {
            ready.add(channel);
            for (const h of set) h({ kind: 'reset' });
          });
        pending.push(listened.catch(() => {}));
      });
    },
    get listening() {
      return handlers.size > 0 && ready.size === handlers.size;
    },
    async close() {
      closed = true;
      await Promise.all(pending);
    },
  };
}

/** Adds a handler to its channel; `firstOfChannel` runs when the channel had none yet (start listening to it). */
function addHandler(
  handlers: Map<string, Set<ChangeHandler>>,
  channel: string,
  handler: ChangeHandler,
  firstOfChannel: (set: Set<ChangeHandler>) => void,
): () => void {
  const known = handlers.get(channel);
  if (known) known.add(handler);
  else {
    const set = new Set([handler]);
    handlers.set(channel, set);
    firstOfChannel(set);
  }
  return () => {
    handlers.get(channel)?.delete(handler);
  };
}
