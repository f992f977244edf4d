// How `proctor api`, `worker` and `dev` stop: on a signal, what they started is stopped in reverse order.
import type { Logger } from '../logger.js';
import type { Tracing } from '../tracing-setup.js';

export type Stop = () => Promise<void>;

/** Traces when the OTEL_* variables ask for them; stopped last, so the spans of the shutdown are sent too. */
export const tracingStop =
  (tracing: Tracing | undefined): Stop =>
  async () =>
    tracing?.shutdown();

/** Runs until SIGINT/SIGTERM, then stops everything in reverse order of start. */
export async function untilSignal(logger: Logger, stops: Stop[]): Promise<number> {
  await new Promise<void>((resolveSignal) => {
    const onSignal = (signal: string) => {
      logger.info('stopping', { signal });
      resolveSignal();
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
  return stopAll(logger, stops);
}

export async function stopAll(logger: Logger, stops: Stop[]): Promise<number> {
  let code = 0;
  for (const stop of [...stops].reverse()) {
    try {
      await stop();
    } catch (err) {
      code = 1;
      logger.error('error while stopping', { err });
    }
  }
  return code;
}
