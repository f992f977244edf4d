// Proctor's production shape as processes, without Docker: `proctor migrate`, then two `proctor api` and two
// `proctor worker` over one PostgreSQL, one Temporal server that keeps its state in a file (so it can be stopped
// and started again), MinIO and the scripted LLM. MinIO and the LLM sit behind TCP proxies a test can cut.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { createDatabase, type DB } from '../../src/db/database.js';
import { seedProject } from '../../src/db/queries/admin.js';
import { loadPrograms } from '../../src/programs.js';
import { startDevServer, type DevServer } from '../../src/temporal/dev-server.js';
import { startMinio } from './minio.js';
import { freePort, waitFor } from './net.js';
import { createDatabaseIn, startPostgres, type PostgresCluster } from './postgres.js';
import { startScriptedLlm, type ScriptedLlm } from './scripted-llm.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
import type { ApiCaller } from './worker-context.js';
import { isRunning, killWorker, startProctorProcess } from './worker-process.js';

export interface ProctorProcess {
  name: string;
  child: ChildProcess;
  /** Its exit code (null when a signal ended it), once it has exited. */
  exited: Promise<number | null>;
  output(): string;
  running(): boolean;
}

export interface ApiProcess extends ProctorProcess, ApiCaller {
  url: string;
}

export interface WorkerProcess extends ProctorProcess {
  /** Its own listener: /metrics, /livez and /readyz. */
  metricsUrl: string;
}

export interface ProductionShape {
  apis: ApiProcess[];
  workers: WorkerProcess[];
  /** The same database the processes use, for what a test checks that the API does not show. */
  db: DB;
  tenant: { projectId: string; token: string };
  /** The tunnel domain every API process serves (one wildcard name in front of them all, as in production). */
  tunnelDomain: string;
  /** Shared by the processes: a request carrying it comes from Proctor's agents. */
  internalSecret: string;
  postgres: PostgresCluster;
  /** Stopped and started again on the same port and database file: workflows survive, connections drop. */
  temporal: { address: string; stop(): Promise<void>; start(): Promise<void> };
  minio: TcpProxy;
  llm: ScriptedLlm & { proxy: TcpProxy };
  /** Starts one more `proctor worker` (after a kill, say). */
  startWorker(extra?: Record<string, string>): Promise<WorkerProcess>;
  stop(): Promise<void>;
}

const spawnProctor = (
  name: string,
  command: 'api' | 'worker' | 'migrate',
  env: Record<string, string>,
): ProctorProcess => {
  const p = startProctorProcess(command, env);
  return { ...p, name, running: () => isRunning(p) };
};

/** SIGKILL to the process group: a crash, nothing cleaned up. */
export const killProcess = (p: ProctorProcess): Promise<void> => killWorker(p);

const apiCaller =
  (url: string, token: string): ApiCaller['call'] =>
  async (method, path, body) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
  };

const tunnelDomain = 'tunnel.proctor.test';

/** Waits for a process's /readyz to answer 200, failing at once with its output if it exits. */
const untilReady = (p: ProctorProcess, readyz: string) =>
  waitFor(
    async () => {
      if (!p.running()) throw new Error(`${p.name} exited:\n${p.output()}`);
      return fetch(readyz).then(
        (r) => r.ok,
        () => false,
      );
    },
    120_000,
    `${p.name} to be ready`,
  );

export async function startProductionShape(opts: { apis?: number; workers?: number } = {}): Promise<ProductionShape> {
  const tools = loadPrograms();
  if (!tools.postgresBin || !tools.temporal || !tools.minio)
    throw new Error('PostgreSQL, the Temporal CLI and MinIO are needed: run npm run setup:test');
  const dir = mkdtempSync(join(tmpdir(), 'proctor-production-'));
  const cleanups: (() => Promise<unknown>)[] = [async () => rmSync(dir, { recursive: true, force: true })];
  const processes: ProctorProcess[] = [];
  const stop = async () => {
    await Promise.allSettled(processes.map(killProcess));
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };
  try {
    const temporalPort = await freePort();
    const temporalDb = join(dir, 'temporal.sqlite');
    const startTemporal = () =>
      startDevServer({ executable: tools.temporal, dbFilename: temporalDb, port: temporalPort });
    // Each part is stopped at the end even when another failed to start.
    const owned = <T>(part: Promise<T>, stopIt: (value: T) => Promise<unknown>): Promise<T> =>
      part.then((value) => {
        cleanups.push(() => stopIt(value));
        return value;
      });
    // The workflow bundle global setup made once for the suite (what `proctor worker` loads from
    // PROCTOR_WORKFLOW_BUNDLE in a deployment): bundling again here cost each file several CPU-seconds.
    const bundlePath = inject('workflowBundlePath');
    // Replaced by each restart: the cleanup stops whichever is running then.
    let temporal: DevServer | undefined;
    cleanups.push(async () => temporal?.stop());
    const [postgres, , minio, llm] = await Promise.all([
      owned(startPostgres(tools.postgresBin), (p) => p.stop()),
      startTemporal().then((t) => (temporal = t)),
      owned(startMinio(tools.minio), (m) => m.stop()),
      owned(startScriptedLlm(), (l) => l.stop()),
    ]);
    const minioUrl = new URL(minio.endpoint);
    const llmUrl = new URL(llm.baseURL);
    const [minioProxy, llmProxy] = await Promise.all([
      startTcpProxy({ host: minioUrl.hostname, port: Number(minioUrl.port) }),
      startTcpProxy({ host: llmUrl.hostname, port: Number(llmUrl.port) }),
    ]);
    cleanups.push(
      () => minioProxy.close(),
      () => llmProxy.close(),
    );

    const databaseUrl = await createDatabaseIn(postgres.url, 'proctor');
    const apiPorts = await Promise.all(Array.from({ length: opts.apis ?? 2 }, () => freePort()));
    const env: Record<string, string> = {
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporal!.address,
      TEMPORAL_TASK_QUEUE: 'proctor',
      S3_ENDPOINT: minioProxy.url('http'),
      S3_ACCESS_KEY: minio.accessKey,
      S3_SECRET_KEY: minio.secretKey,
      S3_BUCKET: 'proctor',
      PROCTOR_MASTER_KEY: randomBytes(32).toString('base64'),
      PROCTOR_INTERNAL_SECRET: randomBytes(24).toString('hex'),
      PROCTOR_PUBLIC_URL: `http://127.0.0.1:${apiPorts[0]}`,
      PROCTOR_APP_URL: `http://127.0.0.1:${apiPorts[0]}`,
      // One tunnel domain for all (each process's default carries its own port); each API process registers its
      // own edge address below, so a request reaching one for a tunnel held by the other is relayed there.
      PROCTOR_TUNNEL_DOMAIN: tunnelDomain,
      PROCTOR_DATA_DIR: join(dir, 'data'),
      PROCTOR_ALLOW_PRIVATE_NETWORKS: 'true',
      PROCTOR_WORKFLOW_BUNDLE: bundlePath,
      OPENAI_API_KEY: llm.apiKey,
      OPENAI_BASE_URL: `${llmProxy.url('http')}${llmUrl.pathname}`,
      PROCTOR_LLM_MODEL: 'scripted',
      // No startup probe: its requests would take the script's replies.
      PROCTOR_LLM_TOOL_MODE: 'native',
      LOG_LEVEL: 'warn',
    };

    const migrate = spawnProctor('migrate', 'migrate', env);
    processes.push(migrate);
    const migrated = await migrate.exited;
    if (migrated !== 0) throw new Error(`proctor migrate exited with ${migrated}:\n${migrate.output()}`);

    const db = createDatabase({ kind: 'postgres', url: databaseUrl, maxConnections: 4 });
    cleanups.push(() => db.destroy());
    const seeded = await seedProject(db, { organization: 'Acme', project: 'Shop' });

    const apis: ApiProcess[] = [];
    for (const [i, port] of apiPorts.entries()) {
      const inboxPort = await freePort();
      const p = spawnProctor(`api ${i + 1}`, 'api', {
        ...env,
        HOST: '127.0.0.1',
        PORT: String(port),
        PROCTOR_EDGE_URL: `http://127.0.0.1:${port}`,
        PROCTOR_INBOX_SMTP_PORT: String(inboxPort),
      });
      processes.push(p);
      const url = `http://127.0.0.1:${port}`;
      apis.push({ ...p, url, call: apiCaller(url, seeded.token) });
    }
    const startWorker = async (extra: Record<string, string> = {}): Promise<WorkerProcess> => {
      const metricsPort = await freePort();
      const w = spawnProctor(`worker ${processes.length}`, 'worker', {
        ...env,
        PROCTOR_METRICS_PORT: String(metricsPort),
        ...extra,
      });
      processes.push(w);
      return { ...w, metricsUrl: `http://127.0.0.1:${metricsPort}` };
    };
    const workers: WorkerProcess[] = [];
    for (let i = 0; i < (opts.workers ?? 2); i++) workers.push(await startWorker());

    for (const api of apis) await untilReady(api, `${api.url}/readyz`);
    // Every worker is ready: its database, Temporal and blob store answer and its Temporal worker polls.
    for (const w of workers) await untilReady(w, `${w.metricsUrl}/readyz`);

    return {
      apis,
      workers,
      db,
      tenant: { projectId: seeded.projectId, token: seeded.token },
      tunnelDomain,
      internalSecret: env.PROCTOR_INTERNAL_SECRET!,
      postgres,
      temporal: {
        address: temporal!.address,
        async stop() {
          await temporal?.stop();
          temporal = undefined;
        },
        async start() {
          temporal = await startTemporal();
        },
      },
      minio: minioProxy,
      llm: Object.assign(llm, { proxy: llmProxy }),
      startWorker,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
