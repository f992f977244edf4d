import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Server } from 'node:http';
import { createApiServer } from '../api/server.js';
import { createApp } from '../api/app.js';
import { loadConfig, type Config } from '../config.js';
import type { DB } from '../db/database.js';
import { migrate } from '../db/migrate.js';
import { findTokenOwner } from '../db/queries/api-tokens.js';
import { seedProject } from '../db/queries/admin.js';
import { createLogger, type Logger } from '../logger.js';
import { dataDir, openBlobStore, openDatabase } from '../runtime.js';
import { createTemporalClientProvider } from '../temporal/client.js';
import { startDeliveryResender } from '../services/webhooks.js';
import { startDevServer, type DevServer } from '../temporal/dev-server.js';
import { startWorker, workerSettings } from '../worker/worker.js';
import { migrateSearchAttributes } from '../temporal/search-attributes.js';
import { loadPrograms } from '../programs.js';
import { createTunnelEdge, type TunnelEdge } from '../tunnels/edge.js';
import { freePortNear } from '../ports.js';
import { startInboxHost } from './inbox.js';
import { startStateSweep } from './state-sweep.js';
import { clientForMetrics, installRuntimeWithMetrics, mountMetrics, startProcessMetrics } from './metrics.js';
import { createLlm } from '../llm/client.js';
import { watchCapabilities } from '../llm/capabilities.js';
import type { LlmStatus } from '../domain/llm-status.js';
import { startTracing } from '../tracing-setup.js';
import { stopAll, tracingStop, untilSignal, type Stop } from './lifecycle.js';

function listen(app: ReturnType<typeof createApp>, config: Config, edge: TunnelEdge): Promise<Server> {
  if (config.PROCTOR_METRICS_PORT === undefined) mountMetrics(app);
  const server = createApiServer(app, edge);
  return new Promise((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, () => resolveListen(server));
  });
}

function startEdge(config: Config, db: DB, logger: Logger): TunnelEdge {
  if (!config.tunnels.internalSecret)
    logger.warn('PROCTOR_INTERNAL_SECRET is not set: agents cannot reach private remote tunnels');
  return createTunnelEdge({
    db,
    logger,
    domain: config.tunnels.domain,
    edgeUrl: config.tunnels.edgeUrl,
    internalSecret: config.tunnels.internalSecret,
  });
}

const closeServer = (server: Server): Promise<void> =>
  new Promise((r) => {
    server.close(() => r());
    // Keep-alive sockets would hold close() open until they time out.
    server.closeAllConnections();
  });

export async function runMigrate(): Promise<number> {
  const config = loadConfig('migrate');
  const db = openDatabase(config);
  try {
    const { results, sealed } = await migrate(db);
    for (const r of results ?? []) process.stdout.write(`${r.status}: ${r.migrationName}\n`);
    if (!results?.length) process.stdout.write('database is up to date\n');
    // The Temporal side: Proctor's search attributes on the namespace (docs/operations.md).
    process.stdout.write(`${await migrateSearchAttributes(config.TEMPORAL_ADDRESS, config.TEMPORAL_NAMESPACE)}\n`);
    const count = sealed.configs + sealed.gitIntegrations + sealed.environments;
    if (count > 0)
      process.stdout.write(
        `sealed secrets stored in clear: ${sealed.configs} config(s), ${sealed.gitIntegrations} Git integration(s), ${sealed.environments} environment(s)\n`,
      );
    return 0;
  } finally {
    await db.destroy();
  }
}

export async function runApi(): Promise<number> {
  const config = loadConfig('api');
  const logger = createLogger(config.LOG_LEVEL, { process: 'api' });
  const tracing = startTracing('proctor-api');
  const db = openDatabase(config);
  const blobs = openBlobStore(config);
  await blobs.ensureReady();
  const temporal = createTemporalClientProvider({
    address: config.TEMPORAL_ADDRESS!,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
  });
  const metrics = await startProcessMetrics(config, logger, clientForMetrics(temporal));
  const edge = startEdge(config, db, logger);
  const llm = llmStatus(config, logger);
  const server = await listen(
    createApp({ db, config, temporal, blobs, logger, llm, tunnels: { domain: config.tunnels.domain, edge } }),
    config,
    edge,
  );
  const resender = startDeliveryResender({ db, temporal, logger });
  const inbox = await startInboxHost(config, { db, blobs, logger }, config.PROCTOR_INBOX_SMTP_PORT);
  const stateSweep = startStateSweep({ db, blobs, logger, temporal });
  logger.info('api listening', { url: config.publicUrl, inboxSmtpPort: inbox.port, inboxDomain: inbox.domain });
  return untilSignal(logger, [
    tracingStop(tracing),
    () => db.destroy(),
    () => temporal.close(),
    resender,
    () => closeServer(server),
    () => edge.close(),
    () => inbox.stop(),
    stateSweep,
    metrics,
  ]);
}

interface DevCredentials {
  organizationId: string;
  projectId: string;
  token: string;
}

/** The seeded dev project's token, reused across restarts while it still opens the database's project. */
async function devCredentials(db: DB, file: string): Promise<DevCredentials> {
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as DevCredentials;
    if (await findTokenOwner(db, saved.token)) return saved;
  }
  const seeded = await seedProject(db, { organization: 'Dev organization', project: 'Dev project' });
  const creds = { organizationId: seeded.organizationId, projectId: seeded.projectId, token: seeded.token };
  writeFileSync(file, JSON.stringify(creds, null, 2) + '\n', { mode: 0o600 });
  return creds;
}

export async function runDev(): Promise<number> {
  const config = loadConfig('dev');
  const logger = createLogger(config.LOG_LEVEL, { process: 'dev' });
  await installRuntimeWithMetrics(logger);
  const dir = dataDir(config);
  const tools = loadPrograms();
  const stops: Stop[] = [tracingStop(startTracing('proctor'))];
  try {
    const db = openDatabase(config);
    stops.push(() => db.destroy());
    await migrate(db);
    const creds = await devCredentials(db, resolve(dir, 'dev-project.json'));

    let temporalAddress = config.TEMPORAL_ADDRESS;
    let uiUrl = config.TEMPORAL_UI_URL;
    if (!temporalAddress) {
      const uiPort = await freePortNear(config.TEMPORAL_UI_PORT);
      const server: DevServer = await startDevServer({
        executable: tools.temporal,
        dbFilename: resolve(dir, 'temporal.db'),
        namespace: config.TEMPORAL_NAMESPACE,
        port: await freePortNear(7233),
        uiPort,
      });
      stops.push(() => server.stop());
      temporalAddress = server.address;
      uiUrl = server.uiUrl;
    }

    const blobs = openBlobStore(config);
    await blobs.ensureReady();
    const temporal = createTemporalClientProvider({
      address: temporalAddress,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
    });
    stops.push(() => temporal.close());
    stops.push(await startProcessMetrics(config, logger, clientForMetrics(temporal)));

    const worker = await startWorker(
      { address: temporalAddress, namespace: config.TEMPORAL_NAMESPACE, taskQueue: config.TEMPORAL_TASK_QUEUE },
      workerSettings(config),
      { db, blobs, logger },
    );
    stops.push(() => worker.stop());

    const edge = startEdge(config, db, logger);
    const server = await listen(
      createApp({
        db,
        config,
        temporal,
        blobs,
        logger,
        llm: llmStatus(config, logger),
        tunnels: { domain: config.tunnels.domain, edge },
      }),
      config,
      edge,
    );
    // Stopped in reverse: the edge lets go of its tunnel clients before the server waits for its sockets.
    stops.push(
      () => closeServer(server),
      () => edge.close(),
      startDeliveryResender({ db, temporal, logger }),
    );
    const inbox = await startInboxHost(
      config,
      { db, blobs, logger },
      await freePortNear(config.PROCTOR_INBOX_SMTP_PORT),
    );
    stops.push(() => inbox.stop(), startStateSweep({ db, blobs, logger, temporal }));

    process.stdout.write(
      [
        '',
        'Proctor dev is running',
        `  API            ${config.publicUrl}/v1`,
        `  API docs       ${config.publicUrl}/docs`,
        `  Dashboard      ${config.appUrl}/runs (sign in with the API token)`,
        `  Temporal UI    ${uiUrl ?? '(external Temporal: see your Temporal UI)'}`,
        `  Temporal       ${temporalAddress}`,
        `  Database       ${config.DATABASE_URL ? 'DATABASE_URL' : `PGlite in ${resolve(dir, 'pglite')}`}`,
        `  Blob store     ${blobs.kind === 's3' ? config.S3_ENDPOINT : resolve(dir, 'blobs')}`,
        `  Inbox (SMTP)   ${config.HOST}:${inbox.port} for *@${inbox.domain}`,
        `  API token      ${creds.token}`,
        '',
        `  curl -H "Authorization: Bearer ${creds.token}" ${config.publicUrl}/v1/applications`,
        '',
        'Ctrl-C stops everything.',
        '',
      ].join('\n'),
    );
  } catch (err) {
    await stopAll(logger, stops);
    throw err;
  }
  return untilSignal(logger, stops);
}

/** The LLM endpoint's capabilities for /healthz: probed once per process (shared with an in-process worker). */
function llmStatus(config: Config, logger: Logger): () => LlmStatus {
  const mode = config.llm?.toolMode;
  const llm =
    config.llm &&
    createLlm(config.llm, { maxRetries: 0, toolMode: mode === 'auto' || mode === undefined ? undefined : mode });
  return watchCapabilities(llm, (c) => logger.info('llm capabilities', { ...c }));
}
