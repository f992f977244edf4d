// The composition root of the worker side, used by `proctor worker`, `proctor dev`, the tests and the benchmarks:
// activities get their dependencies here and nowhere else.
import { fileURLToPath } from 'node:url';
import {
  bundleWorkflowCode,
  NativeConnection,
  Runtime,
  type PrometheusMetricsExporter,
  Worker,
  type WorkflowBundleOption,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { createActivities, withComposites, type Activities, type ActivityDeps } from '../../activities/index.js';
import { createNetworkGuard } from '../browser/context/network-guard.js';
import { createBrowserPool } from '../browser/context/pool.js';
import type { WorkerServices } from '../../activities/deps.js';
import type { Config } from '../config.js';
import type { DB } from '../db/database.js';
import { outlastingOutages } from '../storage/outlasting.js';
import { createLlm, type LlmRole, type ToolMode } from '../llm/client.js';
import { watchCapabilities } from '../llm/capabilities.js';
import type { Logger } from '../logger.js';
import { createEmailSender } from '../notify/email.js';
import type { BlobStore } from '../storage/blob-store.js';
import { createTunnelRouter } from '../tunnels/agent-router.js';
import { GitClients } from '../services/git-client-cache.js';
import { createUsageRecorder } from '../services/llm-usage.js';
import type { PriceTable } from '../domain/llm-usage.js';
import { workerTracingOptions, workflowTracingModules } from '../temporal/tracing.js';
import { activeTracing } from '../tracing-setup.js';
import { temporalLogger } from './temporal-logger.js';

export const workflowsPath = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));

/** What a worker process is configured with; `workerSettings(config)` reads it from the environment. */
export interface WorkerSettings {
  browser: {
    /** Defaults to `loadPrograms().chromium`. */
    executablePath?: string;
    concurrency: number;
    allowPrivateNetworks: boolean;
  };
  /** Absent: no LLM configured (AI features fail with a clear reason). */
  llm?: {
    apiKey: string;
    baseURL?: string;
    model: string;
    maxRetries?: number;
    /** How long a call waits out an unreachable endpoint (default 3 minutes; src/llm/outage.ts). */
    outageWaitMs?: number;
    prices?: PriceTable;
    toolMode?: ToolMode | 'auto';
    models?: Partial<Record<LlmRole, string>>;
  };
  maxAgentSteps?: number;
  stepTimeoutMs?: number;
  /** PROCTOR_INBOX_DOMAIN: the addresses `{{INBOX}}` stands for (the API process receives their mail). */
  inboxDomain?: string;
  /** Dashboard links in run notifications; `email` absent: no SMTP server, email notifications are skipped. */
  notify: { appUrl: string; email?: { smtpUrl: string; from: string } };
  /**
   * Remote tunnels: the browsers' egress proxy sends hostnames under `domain` to an API process holding a live
   * connection, marked with the internal secret. Absent: the edges would refuse the agents, so those hostnames
   * stay unknown names.
   */
  tunnels?: { domain: string; internalSecret: string };
  /** TEMPORAL_WORKER_IDENTITY: tells workers apart in histories when several share a task queue. */
  identity?: string;
}

/** What the worker shares with the rest of its process (the API in `proctor dev`). */
export interface WorkerResources {
  db: DB;
  blobs: BlobStore;
  logger: Logger;
}

export function workerSettings(config: Config): WorkerSettings {
  return {
    browser: {
      executablePath: config.PROCTOR_CHROMIUM_PATH,
      concurrency: config.PROCTOR_BROWSER_CONCURRENCY,
      allowPrivateNetworks: config.allowPrivateNetworks,
    },
    llm: config.llm,
    maxAgentSteps: config.PROCTOR_AGENT_MAX_STEPS,
    stepTimeoutMs: config.PROCTOR_STEP_TIMEOUT_MS,
    inboxDomain: config.PROCTOR_INBOX_DOMAIN,
    notify: {
      appUrl: config.appUrl,
      email: config.PROCTOR_SMTP_URL
        ? { smtpUrl: config.PROCTOR_SMTP_URL, from: config.PROCTOR_EMAIL_FROM }
        : undefined,
    },
    tunnels: config.tunnels.internalSecret
      ? { domain: config.tunnels.domain, internalSecret: config.tunnels.internalSecret }
      : undefined,
    identity: config.TEMPORAL_WORKER_IDENTITY,
  };
}

/**
 * The worker's service context, the one place it is built: the shared resources, the dashboard's address for links,
 * and git clients kept for the life of the process (GitHub App installation tokens are reused across activities).
 */
export function workerServiceContext(
  resources: WorkerResources,
  settings: Pick<WorkerSettings, 'notify'>,
): WorkerServices {
  return { ...resources, appUrl: settings.notify.appUrl, gitClients: new GitClients() };
}

/** The activities' dependencies: one browser pool per process, the LLM when configured. */
export function createActivityDeps(settings: WorkerSettings, resources: WorkerResources): ActivityDeps {
  const { allowPrivateNetworks } = settings.browser;
  const networkGuard = createNetworkGuard({ allowPrivateNetworks });
  const tunnels = settings.tunnels && createTunnelRouter({ db: resources.db, ...settings.tunnels });
  // Only the browsers' egress proxy routes tunnel hostnames; webhooks keep the plain guard, which would otherwise
  // let such a name through to the system resolver (`*.localhost` is loopback).
  const browserGuard = tunnels
    ? createNetworkGuard({ allowPrivateNetworks, isTunnelHost: tunnels.isTunnelHost })
    : networkGuard;
  const { llm, notify } = settings;
  const client =
    llm &&
    createLlm(llm, {
      maxRetries: llm.maxRetries,
      // A worker's calls wait out an unreachable endpoint (a restart) rather than fail the work they belong to.
      outageWaitMs: llm.outageWaitMs ?? 180_000,
      toolMode: llm.toolMode === 'auto' ? undefined : (llm.toolMode ?? 'native'),
    });
  // The endpoint is probed in the background; calls before it answers use native tools and fall back on refusal.
  watchCapabilities(client, (c) => resources.logger.info('llm capabilities', { ...c }));
  return {
    ...workerServiceContext(resources, settings),
    browsers: createBrowserPool({
      executablePath: settings.browser.executablePath,
      concurrency: settings.browser.concurrency,
      queueTimeoutMs: 10 * 60_000,
      networkGuard: browserGuard,
      tunnels,
    }),
    llm: client,
    usage: createUsageRecorder({ db: resources.db, prices: llm?.prices }),
    maxAgentSteps: settings.maxAgentSteps,
    stepTimeoutMs: settings.stepTimeoutMs,
    inboxDomain: settings.inboxDomain,
    notify: {
      appUrl: notify.appUrl,
      email: notify.email && createEmailSender(notify.email),
      networkGuard,
    },
  };
}

/** Bundles workflows/index.ts, or another entry (a workflow test's own stubs next to the real workflows). */
export function bundleWorkflows(entry = workflowsPath): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath: entry,
    workflowInterceptorModules: workflowTracingModules,
    logger: quietBundlerLogger,
  });
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

export interface TemporalWorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  /**
   * A prebuilt bundle, as code or as a file (the test suite bundles once for all its files, since bundling takes
   * seconds of CPU); otherwise the workflows are bundled at start.
   */
  workflowBundle?: WorkflowBundleOption;
  /** The process's Temporal connection (src/temporal/worker-connection.ts), left open on stop; absent: its own. */
  connection?: NativeConnection;
  maxConcurrentActivityTaskExecutions?: number;
  /** How long a stopping worker lets running activities finish before cancelling them; absent: at once (tests, dev). */
  drainSeconds?: number;
  /** Replaces activities by stand-ins (bench/plan-run's fast test body at 10,000 tests); production passes none. */
  substitute?: (activities: Activities, deps: ActivityDeps) => Activities;
}

export interface ProctorWorker {
  worker: Worker;
  deps: ActivityDeps;
  activities: Activities;
  /** Polls until stopped; rejects when the worker fails. */
  running: Promise<void>;
  /** Drains the worker, then closes its connection and its browsers. */
  stop(): Promise<void>;
}

/** Builds the activities' dependencies and a polling Worker: the one way a worker is assembled. */
export async function startWorker(
  temporal: TemporalWorkerOptions,
  settings: WorkerSettings,
  resources: WorkerResources,
): Promise<ProctorWorker> {
  // Activities wait out a blob store outage (a MinIO restart) instead of failing the test they are recording.
  const deps = createActivityDeps(settings, { ...resources, blobs: outlastingOutages(resources.blobs) });
  const activities = temporal.substitute
    ? withComposites(temporal.substitute(createActivities(deps), deps))
    : createActivities(deps);
  let connection: NativeConnection | undefined;
  try {
    connection = temporal.connection ?? (await NativeConnection.connect({ address: temporal.address }));
    const worker = await Worker.create({
      connection,
      namespace: temporal.namespace,
      taskQueue: temporal.taskQueue,
      // Spread, not `identity: undefined`: the SDK merges options over its defaults, so undefined would clear its own.
      ...(settings.identity && { identity: settings.identity }),
      workflowBundle: temporal.workflowBundle ?? (await bundleWorkflows()),
      activities,
      maxConcurrentActivityTaskExecutions: temporal.maxConcurrentActivityTaskExecutions ?? 50,
      // Cancellation reaches an activity with its heartbeat response: keep that delay around a second.
      maxHeartbeatThrottleInterval: '1 second',
      defaultHeartbeatThrottleInterval: '1 second',
      ...(temporal.drainSeconds && { shutdownGraceTime: `${temporal.drainSeconds} seconds` }),
      ...workerTracingOptions(activeTracing()),
    });
    const running = worker.run();
    const open = temporal.connection ? undefined : connection;
    return {
      worker,
      deps,
      activities,
      running,
      async stop() {
        if (worker.getState() === 'RUNNING') worker.shutdown();
        try {
          await running;
        } finally {
          await open?.close();
          await deps.browsers.close();
        }
      },
    };
  } catch (err) {
    if (!temporal.connection) await connection?.close();
    await deps.browsers.close();
    throw err;
  }
}

/**
 * The CLI owns SIGINT/SIGTERM: it stops the API, then the worker, then the servers it started, in order.
 * Left to itself the SDK would drain the worker on the same signal, racing that shutdown.
 */
export function installRuntimeWithoutSignalHandlers(
  options: { logger?: Logger; metrics?: PrometheusMetricsExporter } = {},
): void {
  const { logger, metrics } = options;
  Runtime.install({
    shutdownSignals: [],
    // The SDK's own lines (workflow and activity `log`, the worker's) go through Proctor's JSON logger.
    ...(logger && { logger: temporalLogger(logger) }),
    // The core's Prometheus exporter (src/cli/metrics.ts serves it on the process's /metrics).
    ...(metrics && { telemetryOptions: { metrics } }),
  });
}
