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
