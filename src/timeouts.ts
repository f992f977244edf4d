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
