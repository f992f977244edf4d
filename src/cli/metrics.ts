// Where a process serves /metrics (docs/operations.md): the API on its own port unless PROCTOR_METRICS_PORT moves it
// to a listener of its own; the worker always on a listener of its own (PROCTOR_METRICS_PORT, default 9464).
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { Env, Hono } from 'hono';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import {
  addExposition,
  collectProcessMetrics,
  metricsContentType,
  readBacklogFrom,
  renderMetrics,
} from '../metrics.js';
import type { WorkflowService } from '@temporalio/client';
import type { TemporalClientProvider } from '../temporal/client.js';
import { taskQueueBacklogReader } from '../temporal/task-queue-backlog.js';
import { checkReadiness, type Probes } from '../services/readiness.js';
import { installRuntimeWithoutSignalHandlers } from '../worker/worker.js';
import { freePortNear } from '../ports.js';

/** The worker's metrics port when PROCTOR_METRICS_PORT is unset (the OpenTelemetry Prometheus exporter's). */
export const defaultWorkerMetricsPort = 9464;

/**
 * Installs Temporal's Runtime (once per process, before any connection) with its core's Prometheus exporter on a
 * free loopback port, and appends what that exporter serves to this process's /metrics. Names follow Prometheus
 * conventions: counters end in `_total`, durations are `_seconds`.
 */
export async function installRuntimeWithMetrics(logger: Logger): Promise<void> {
  const bindAddress = `127.0.0.1:${await freePortNear(0)}`;
  installRuntimeWithoutSignalHandlers({
    logger,
    metrics: {
      prometheus: { bindAddress, countersTotalSuffix: true, unitSuffix: true, useSecondsForDurations: true },
    },
  });
  addExposition(async () => {
    const res = await fetch(`http://${bindAddress}/metrics`, { signal: AbortSignal.timeout(2_000) });
    return res.ok ? res.text() : '';
  });
}

/** Where a process's backlog gauges and readiness probe reach Temporal: the API's client, the worker's connection. */
export interface TemporalForMetrics {
  readonly namespace: string;
  readonly taskQueue: string;
  workflowService(): Promise<WorkflowService>;
  ping(timeoutMs?: number): Promise<void>;
}

/** The API's (and `proctor dev`'s) client as the metrics' way to Temporal. */
export const clientForMetrics = (temporal: TemporalClientProvider): TemporalForMetrics => ({
  namespace: temporal.namespace,
  taskQueue: temporal.taskQueue,
  workflowService: async () => (await temporal.get()).workflowService,
  ping: (timeoutMs) => temporal.ping(timeoutMs),
});

/**
 * The process's metrics: the backlog gauges read through its own Temporal connection (no second one: see
 * src/temporal/worker-connection.ts), and the listener of its own when it has one. Returns what stops them.
 */
export async function startProcessMetrics(
  config: Pick<Config, 'mode' | 'HOST' | 'PROCTOR_METRICS_PORT'>,
  logger: Logger,
  temporal: TemporalForMetrics,
  /** The worker's readiness, served beside /metrics with /livez (src/services/readiness.ts). */
  probes?: (temporal: TemporalForMetrics) => Probes,
): Promise<() => Promise<void>> {
  readBacklogFrom(
    taskQueueBacklogReader({
      service: () => temporal.workflowService(),
      namespace: temporal.namespace,
      taskQueue: temporal.taskQueue,
    }),
  );
  const port = config.PROCTOR_METRICS_PORT ?? (config.mode === 'worker' ? defaultWorkerMetricsPort : undefined);
  const server = port === undefined ? undefined : await startMetricsServer(config, port, logger, probes?.(temporal));
  return async () => {
    readBacklogFrom(undefined);
    await server?.stop();
  };
}

const answer = async () => new Response(await renderMetrics(), { headers: { 'content-type': metricsContentType } });

/**
 * `GET /metrics` on the API's port, outside /v1 and its tokens like /healthz: a scraper holds no project's token,
 * and what it reads is counts by labels from closed sets, no id, project or secret (test/unit/metrics.test.ts).
 * Not in the OpenAPI document: it is for Prometheus, not for API clients.
 */
export function mountMetrics<E extends Env>(app: Hono<E>): void {
  collectProcessMetrics();
  app.get('/metrics', () => answer());
}

/**
 * A listener that serves /metrics, and with `probes` the process's /livez and /readyz (the worker has no other
 * HTTP port for Kubernetes to probe); `port` 0 takes a free one.
 */
export async function startMetricsServer(
  config: Pick<Config, 'HOST'>,
  port: number,
  logger: Logger,
  probes?: Probes,
): Promise<{ port: number; stop(): Promise<void> }> {
  collectProcessMetrics();
  const json = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const server: Server = createServer((req, res) => {
    const path = req.url?.split('?')[0];
    if (req.method === 'GET' && probes && path === '/livez') return json(res, 200, { status: 'ok' });
    if (req.method === 'GET' && probes && path === '/readyz') {
      void checkReadiness(probes).then(({ ready, checks }) =>
        json(res, ready ? 200 : 503, { status: ready ? 'ready' : 'unready', checks }),
      );
      return;
    }
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /metrics\n');
      return;
    }
    renderMetrics().then(
      (text) => res.writeHead(200, { 'content-type': metricsContentType }).end(text),
      (err: unknown) => {
        logger.error('metrics failed', { err });
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, config.HOST, () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  logger.info('metrics listening', { url: `http://${config.HOST}:${bound}/metrics` });
  return {
    port: bound,
    stop: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
