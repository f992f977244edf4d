import { Context } from '@temporalio/activity';

/** Heartbeats when running as an activity; a no-op when the same code runs outside Temporal (benchmarks). */
export function heartbeat(details?: unknown): void {
  try {
    Context.current().heartbeat(details);
  } catch {
    // not inside an activity
  }
}

/** The activity's cancellation signal, so a cancelled run releases its browser context promptly. */
export function cancellationSignal(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined;
  }
}

/**
 * Heartbeats every `intervalMs` while `work` runs, with the latest progress: a long step (a slow page) must
 * not look like a dead worker, and cancellation is only delivered to an activity when it heartbeats.
 */
export async function withHeartbeats<T>(
  work: (progress: (details: unknown) => void) => Promise<T>,
  intervalMs = 1_000,
): Promise<T> {
  let latest: unknown;
  const timer = setInterval(() => heartbeat(latest), intervalMs);
  try {
    return await work((details) => {
      latest = details;
      heartbeat(details);
    });
  } finally {
    clearInterval(timer);
  }
}
