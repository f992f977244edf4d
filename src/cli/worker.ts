// `proctor worker`: a Temporal worker that runs the workflows and activities (browsers, the LLM), with its
// metrics and readiness probes beside it; on SIGTERM it drains running activities before it stops.
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { openBlobStore, openDatabase } from '../runtime.js';
import { processProbes } from '../services/readiness.js';
import { createWorkerConnection } from '../temporal/worker-connection.js';
import { startTracing } from '../tracing-setup.js';
import { startWorker, workerSettings, type ProctorWorker } from '../worker/worker.js';
import { tracingStop, untilSignal } from './lifecycle.js';
import { installRuntimeWithMetrics, startProcessMetrics } from './metrics.js';

export async function runWorker(): Promise<number> {
  const config = loadConfig('worker');
  const logger = createLogger(config.LOG_LEVEL, { process: 'worker' });
  await installRuntimeWithMetrics(logger);
  const tracing = startTracing('proctor-worker');
  const db = openDatabase(config);
  const blobs = openBlobStore(config);
  await blobs.ensureReady();
  const started: { worker?: ProctorWorker } = {};
  // One Temporal connection for the worker, its probe and its backlog gauges.
  const temporal = createWorkerConnection({
    address: config.TEMPORAL_ADDRESS!,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
  });
  const metrics = await startProcessMetrics(config, logger, temporal, (temporal) => ({
    ...processProbes({ db, temporal, blobs }),
    // Ready once its Temporal worker polls; not while it starts or drains.
    poller: async () => {
      const state = started.worker?.worker.getState() ?? 'STARTING';
      if (state !== 'RUNNING') throw new Error(`the worker is ${state.toLowerCase()}`);
    },
  }));
  const worker = await startWorker(
    {
      address: config.TEMPORAL_ADDRESS!,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      connection: await temporal.connection(),
      workflowBundle: config.PROCTOR_WORKFLOW_BUNDLE ? { codePath: config.PROCTOR_WORKFLOW_BUNDLE } : undefined,
      drainSeconds: config.PROCTOR_WORKER_DRAIN_SECONDS,
    },
    workerSettings(config),
    { db, blobs, logger },
  );
  started.worker = worker;
  logger.info('worker polling', { taskQueue: config.TEMPORAL_TASK_QUEUE });
  // Stopped in reverse: the worker drains before its connection closes.
  return untilSignal(logger, [
    tracingStop(tracing),
    () => db.destroy(),
    () => temporal.close(),
    () => worker.stop(),
    metrics,
  ]);
}
