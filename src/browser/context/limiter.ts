// A small async limiter: at most `concurrency` jobs run at once, the rest wait in a bounded FIFO queue.

export class QueueFullError extends Error {
  override readonly name = 'QueueFullError';
  constructor(readonly maxQueue: number) {
    super(`too many jobs waiting for a browser (queue limit ${maxQueue})`);
  }
}

export class QueueTimeoutError extends Error {
  override readonly name = 'QueueTimeoutError';
  constructor(readonly waitedMs: number) {
    super(`waited ${waitedMs} ms for a free browser slot`);
  }
}

export interface LimiterOptions {
  concurrency: number;
  /** Jobs allowed to wait; one more is refused with `QueueFullError`. Unbounded when omitted. */
  maxQueue?: number;
  /** A job that waits longer than this is refused with `QueueTimeoutError`. No limit when omitted. */
  queueTimeoutMs?: number;
}

export interface LimiterStats {
  active: number;
  queued: number;
  /** The most jobs that ever ran at once. */
  peakActive: number;
}

export interface Limiter {
  /** Runs `fn` when a slot is free. An aborted `signal` takes a waiting job out of the queue; a running job sees the signal itself. */
  run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  stats(): LimiterStats;
}

interface Waiter {
  grant(): void;
}

export function createLimiter(options: LimiterOptions): Limiter {
  const { concurrency, maxQueue = Infinity, queueTimeoutMs } = options;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);

  const queue: Waiter[] = [];
  let active = 0;
  let peakActive = 0;

  function take(): void {
    active += 1;
    peakActive = Math.max(peakActive, active);
  }

  function release(): void {
    active -= 1;
    // The slot passes straight to the next waiter, so a new arrival cannot overtake the queue.
    const next = queue.shift();
    if (next) {
      take();
      next.grant();
    }
  }

  function acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (active < concurrency && queue.length === 0) {
      take();
      return Promise.resolve();
    }
    if (queue.length >= maxQueue) return Promise.reject(new QueueFullError(maxQueue));

    return new Promise<void>((resolve, reject) => {
      const startedAt = Date.now();
      let timer: NodeJS.Timeout | undefined;
      const leave = (err: unknown): void => {
        const at = queue.indexOf(waiter);
        if (at < 0) return;
        queue.splice(at, 1);
        cleanup();
        reject(err);
      };
      const onAbort = (): void => leave(abortReason(signal!));
      const cleanup = (): void => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const waiter: Waiter = {
        grant() {
          cleanup();
          resolve();
        },
      };
      queue.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (queueTimeoutMs !== undefined)
        timer = setTimeout(() => leave(new QueueTimeoutError(Date.now() - startedAt)), queueTimeoutMs);
    });
  }

  return {
    async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      await acquire(signal);
      try {
        return await fn();
      } finally {
        release();
      }
    },
    stats: () => ({ active, queued: queue.length, peakActive }),
  };
}

export function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('The operation was aborted', 'AbortError');
}
