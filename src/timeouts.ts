/**
 * `work`, or the error `onTimeout` makes when it has not settled within `ms`. The work itself goes on (a promise
 * cannot be cancelled): a caller that must know how it ended keeps its own handle on it.
 */
export function withTimeout<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * `call`, tried again while it fails with what `passing` calls a passing trouble (an outage), with pauses from
 * `firstPauseMs` doubling up to `maxPauseMs`, for up to `waitMs` after the first failure; then its last error. Any
 * other error, or one when `canRetry` says no, is thrown at once.
 */
export async function rideOut<T>(
  call: () => Promise<T>,
  opts: {
    waitMs: number | undefined;
    passing: (err: unknown) => boolean;
    firstPauseMs: number;
    maxPauseMs: number;
    canRetry?: () => boolean;
  },
): Promise<T> {
  let failedAt: number | undefined;
  for (let pause = opts.firstPauseMs; ; pause = Math.min(pause * 2, opts.maxPauseMs)) {
    try {
      return await call();
    } catch (err) {
      if (!opts.waitMs || !opts.passing(err) || opts.canRetry?.() === false) throw err;
      failedAt ??= Date.now();
      const left = failedAt + opts.waitMs - Date.now();
      if (left <= 0) throw err;
      await new Promise((r) => setTimeout(r, Math.min(pause, left)));
    }
  }
}
