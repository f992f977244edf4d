import { Client, Connection } from '@temporalio/client';
import { withTimeout } from '../timeouts.js';
import { activeTracing } from '../tracing-setup.js';
import { tracingClientInterceptors } from './tracing.js';

/**
 * Connects on first use, so the API starts (and serves /healthz honestly) while Temporal is still coming up.
 */
export interface TemporalClientProvider {
  readonly address: string;
  readonly namespace: string;
  readonly taskQueue: string;
  get(): Promise<Client>;
  /** Resolves when the server answers a health check within the timeout. */
  ping(timeoutMs?: number): Promise<void>;
  /** How many workers poll the task queue for workflow tasks now (0: runs would wait for a worker). */
  workerPollers(timeoutMs?: number): Promise<number>;
  close(): Promise<void>;
}

/**
 * grpc-js waits ever longer between attempts to reconnect, up to 120 s. After a Temporal restart of half a minute, an
 * API process measured here stayed unready (and refused runs) for 54 s after the server was back, while the workers
 * (Rust core) took a few seconds. A reconnect at least every 5 s costs a failed connect a few times a minute, and only
 * while Temporal is down.
 */
const reconnectQuickly = { 'grpc.initial_reconnect_backoff_ms': 500, 'grpc.max_reconnect_backoff_ms': 5_000 };

export function createTemporalClientProvider(opts: {
  address: string;
  namespace: string;
  taskQueue: string;
}): TemporalClientProvider {
  let connecting: Promise<Connection> | undefined;
  let client: Client | undefined;

  const connection = (): Promise<Connection> => {
    connecting ??= Connection.connect({
      address: opts.address,
      connectTimeout: 5_000,
      channelArgs: reconnectQuickly,
    }).catch((err: unknown) => {
      connecting = undefined; // try again on the next call instead of caching the failure
      throw err;
    });
    return connecting;
  };

  return {
    ...opts,
    async get() {
      client ??= new Client({
        connection: await connection(),
        namespace: opts.namespace,
        interceptors: tracingClientInterceptors(activeTracing()),
      });
      return client;
    },
    async ping(timeoutMs = 2_000) {
      const conn = await withTimeout(
        connection(),
        timeoutMs,
        () => new Error(`Temporal connection timed out after ${timeoutMs} ms`),
      );
      await conn.withDeadline(Date.now() + timeoutMs, () => conn.healthService.check({}));
    },
    async workerPollers(timeoutMs = 2_000) {
      const conn = await withTimeout(
        connection(),
        timeoutMs,
        () => new Error(`Temporal connection timed out after ${timeoutMs} ms`),
      );
      const response = await conn.withDeadline(Date.now() + timeoutMs, () =>
        conn.workflowService.describeTaskQueue({ namespace: opts.namespace, taskQueue: { name: opts.taskQueue } }),
      );
      return response.pollers?.length ?? 0;
    },
    async close() {
      const pending = connecting;
      connecting = undefined;
      client = undefined;
      if (pending) await (await pending.catch(() => undefined))?.close();
    },
  };
}
