// An endpoint that cannot be reached (connection refused or reset, a gateway's 502/503/504) is most often a restart
// or a network blip: a call in a worker waits it out in place, with growing pauses, for up to `waitMs`, instead of
// failing the burn-in, heal or chat turn it belongs to (which would start over and spend its tokens again). What the
// endpoint itself refused (4xx, a 500 from the model server, or any answer saying not to retry) is not waited on.
import OpenAI from 'openai';
import { rideOut } from '../timeouts.js';

const gatewayStatuses = new Set([502, 503, 504]);

export function isOutage(err: unknown): boolean {
  if (err instanceof OpenAI.APIConnectionError) return true;
  if (!(err instanceof OpenAI.APIError) || err.status === undefined || !gatewayStatuses.has(err.status)) return false;
  return err.headers?.get('x-should-retry') !== 'false';
}

/** Runs `call`, waiting out an outage for up to `waitMs` after its first failure (pauses of 1, 2, 4… up to 15 s). */
export const riding = <T>(
  waitMs: number | undefined,
  call: () => Promise<T>,
  /** False once a retry would repeat what the caller already passed on (a stream's first words). */
  canRetry?: () => boolean,
): Promise<T> => rideOut(call, { waitMs, passing: isOutage, firstPauseMs: 1_000, maxPauseMs: 15_000, canRetry });
