import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, NativeConnection, Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../../activities/index.js';

export const workflowsPath = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));

export interface WorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  deps: ActivityDeps;
  /** A prebuilt bundle (tests build one per run); otherwise the workflows are bundled at start. */
  workflowBundle?: WorkflowBundleWithSourceMap;
  maxConcurrentActivityTaskExecutions?: number;
}

export function bundleWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath, logger: quietBundlerLogger });
}

// The bundler reports every module at info level; only problems matter here.
const quietBundlerLogger = {
  log: () => {},
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};

/** The composition root of the worker side: activities get their dependencies here and nowhere else. */
export async function createWorker(opts: WorkerOptions): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection = await NativeConnection.connect({ address: opts.address });
  const worker = await Worker.create({
    connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    workflowBundle: opts.workflowBundle ?? (await bundleWorkflows()),
    activities: createActivities(opts.deps),
    maxConcurrentActivityTaskExecutions: opts.maxConcurrentActivityTaskExecutions ?? 50,
    // Cancellation reaches an activity with its heartbeat response: keep that delay around a second.
    maxHeartbeatThrottleInterval: '1 second',
    defaultHeartbeatThrottleInterval: '1 second',
  });
  return { worker, connection };
}

/**
 * The CLI owns SIGINT/SIGTERM: it stops the API, then the worker, then the servers it started, in order.
 * Left to itself the SDK would drain the worker on the same signal, racing that shutdown.
 */
export function installRuntimeWithoutSignalHandlers(): void {
  Runtime.install({ shutdownSignals: [] });
}

export async function stopWorker(worker: Worker, running: Promise<void>): Promise<void> {
  if (worker.getState() === 'RUNNING') worker.shutdown();
  await running;
}
