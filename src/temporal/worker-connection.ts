import type { WorkflowService } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { withTimeout } from '../timeouts.js';

/**
 * A worker process's one Temporal connection (the SDK's native one), opened on first use and shared by its Temporal
 * worker, its readiness probe and its backlog gauges. A second connection (a client's, for the probe and the
 * gauges) cost each worker process a gRPC channel to Temporal and ~200 ms of CPU at its first scrape
 * (bench/observability.ts, docs/operations.md).
 */
export interface WorkerConnection {
  readonly namespace: string;
  readonly taskQueue: string;
  connection(): Promise<NativeConnection>;
  workflowService(): Promise<WorkflowService>;
  /** Resolves when the server answers a health check within the timeout. */
  ping(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export function createWorkerConnection(opts: {
  address: string;
  namespace: string;
  taskQueue: string;
}): WorkerConnection {
  let connecting: Promise<NativeConnection> | undefined;
  const connection = (): Promise<NativeConnection> => {
    connecting ??= NativeConnection.connect({ address: opts.address }).catch((err: unknown) => {
      connecting = undefined; // try again on the next call instead of caching the failure
      throw err;
    });
    return connecting;
  };
  const within = <T>(timeoutMs: number, what: Promise<T>) =>
    withTimeout(what, timeoutMs, () => new Error(`Temporal did not answer within ${timeoutMs} ms`));
  return {
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    connection,
    workflowService: async () => (await connection()).workflowService,
    async ping(timeoutMs = 2_000) {
      const conn = await within(timeoutMs, connection());
      await within(timeoutMs, conn.healthService.check({}));
    },
    async close() {
      const pending = connecting;
      connecting = undefined;
      if (pending) await (await pending.catch(() => undefined))?.close();
    },
  };
}
