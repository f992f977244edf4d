// Throughput and latency of the real API on the reads CI clients and dashboards make most, next to a bare
// Hono route returning the same JSON: the ratio is what Proctor's stack costs per request (request-id and
// auth middleware, token lookup, queries, zod-openapi response). One run measures, on Postgres and on PGlite:
//   GET /v1/run/{shortId}            what every CI client polls (a finished run of 10 tests)
//   GET /v1/test-cases?limit=50      a full page of a project with 60 test cases
//   GET /v1/applications             20 applications
//   a bare Hono route                answering the run's JSON
// and, per route, the database round trips one request makes once the token is known (counted by a Kysely
// plugin on the app's database handle).
//
//   node --import tsx bench/api.ts
//       Postgres: a private cluster started for the run (the test suite's: fsync off) unless DATABASE_URL is set,
//       in which case a fresh database `bench_<random>` is created in that server (the role needs CREATEDB)
//       and dropped at the end, so any existing data is left alone. PGlite: in memory.
//   BENCH_DURATION=5  seconds of measurement per target (default 10), after a 2 s warm-up each.
//   BENCH_DATABASES=postgres   which ones, comma-separated (postgres, postgres-socket, pglite; default
//       postgres,pglite). postgres-socket: the private cluster through its Unix socket instead of TCP.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import autocannon from 'autocannon';
import { Hono } from 'hono';
import {
  sql,
  type KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import pg from 'pg';
import { createApp } from '../src/api/app.js';
import { changeFeedOf, createDatabase, migrateToLatest, type DB } from '../src/db/database.js';
import { seedProject } from '../src/db/queries/admin.js';
import { createApplication } from '../src/db/queries/applications.js';
import { insertRun } from '../src/db/queries/runs.js';
import { newId, newShortId } from '../src/ids.js';
import { silentLogger } from '../src/logger.js';
import { createFsBlobStore } from '../src/storage/fs.js';
import { createTemporalClientProvider } from '../src/temporal/client.js';
import { loadPrograms } from '../src/programs.js';
import { startPostgres, type PostgresCluster } from '../test/support/postgres.js';
import { watchdog } from './support.js';

const duration = Number(process.env.BENCH_DURATION ?? 10);
if (!Number.isFinite(duration) || duration <= 0) throw new Error('BENCH_DURATION must be a positive number of seconds');
const known = ['postgres', 'postgres-socket', 'pglite'];
const kinds = (process.env.BENCH_DATABASES ?? 'postgres,pglite').split(',').map((k) => k.trim());
if (kinds.length === 0 || kinds.some((k) => !known.includes(k)))
  throw new Error(`BENCH_DATABASES: one or more of ${known.join(', ')}`);
const warmup = 2;
const connections = 50;
// Each of the 3 routes right after a measurement of the bare route.
const targetsPerDatabase = 6;

// Whatever goes wrong (a hung socket, a stuck pool), the process ends.
watchdog(kinds.length * targetsPerDatabase * (warmup + duration) + 300, 'bench/api');

/** Counts the statements sent through the handle it is attached to: the round trips of a request. */
class QueryCounter implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.count++;
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

interface BenchDatabase {
  db: DB;
  label: string;
  /** CPU seconds the database server has used so far, when it is a separate local process (else undefined). */
  serverCpu?: () => number;
  dispose(): Promise<void>;
}

// Requests per second move with whatever else the shared machine runs; CPU time per request barely does. So each
// target also reports the CPU one request costs: this process (the API, plus autocannon's worker thread, the same
// for every target, which the bare row shows) and the Postgres server. bare CPU ÷ target CPU is then the req/s
// ratio the target would reach if CPU were the only limit, as it is on a small machine running all of it.
const clockTicks = 100; // USER_HZ: /proc reports CPU in 1/100 s on every Linux platform Node supports

function procCpuSeconds(pid: number): { ppid: number; seconds: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may itself contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), seconds: (Number(fields[11]) + Number(fields[12])) / clockTicks };
  } catch {
    return undefined; // the process ended between listing and reading
  }
}

/** CPU seconds of a local Postgres server: its postmaster and every process it started, read from /proc. */
async function postgresCpuReader(db: DB): Promise<(() => number) | undefined> {
  const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db);
  const postmaster = rows[0] && procCpuSeconds(rows[0].pid)?.ppid;
  if (!postmaster || !procCpuSeconds(postmaster)) return undefined; // a remote server, or no /proc
  return () => {
    let total = 0;
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const proc = procCpuSeconds(Number(entry));
      if (proc && (Number(entry) === postmaster || proc.ppid === postmaster)) total += proc.seconds;
    }
    return total;
  };
}

async function openPostgres(plugins: KyselyPlugin[], overSocket: boolean): Promise<BenchDatabase> {
  let cluster: PostgresCluster | undefined;
  let url = process.env.DATABASE_URL;
  if (overSocket && url) throw new Error('postgres-socket measures the private cluster: leave DATABASE_URL unset');
  if (!url) {
    const bin = loadPrograms().postgresBin;
    if (!bin) throw new Error('PostgreSQL is not installed: run `npm run setup:test`, or set DATABASE_URL');
    cluster = await startPostgres(bin);
    url = cluster.url;
  }
  const name = `bench_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`create database "${name}"`);
  const benchUrl = new URL(url);
  benchUrl.pathname = `/${name}`;
  // The socket URL has no host for `URL` to hold: the database name goes in by text.
  const appUrl = overSocket ? cluster!.socketUrl.replace('@/postgres?', `@/${name}?`) : benchUrl.toString();
  // The production default pool size (DATABASE_POOL_SIZE), so the figure is what `proctor api` would do.
  const db = createDatabase({ kind: 'postgres', url: appUrl, maxConnections: 10 }, plugins);
  return {
    db,
    label: `Postgres (${cluster ? `private cluster, fsync off, ${overSocket ? 'Unix socket' : 'TCP'}` : benchUrl.host}, pool of 10)`,
    serverCpu: await postgresCpuReader(db),
    async dispose() {
      await db.destroy();
      // No `with (force)`: the pool's sockets may still be closing, and a forced drop would kill them with
      // an error event nobody listens to. A plain drop waits up to 5 s for them to go.
      await admin(`drop database "${name}"`);
      await cluster?.stop();
    },
  };
}

function openPglite(plugins: KyselyPlugin[]): BenchDatabase {
  const db = createDatabase({ kind: 'pglite' }, plugins);
  return { db, label: 'PGlite (in memory)', dispose: () => db.destroy() };
}

/** A project as a busy one looks: 20 applications, 60 test cases, a plan and a finished run of 10 tests. */
async function seed(db: DB): Promise<{ token: string; runShortId: string }> {
  const { projectId, token } = await seedProject(db, { organization: 'Bench', project: 'Bench' });
  for (let i = 1; i <= 20; i++) await createApplication(db, projectId, { name: `Application ${i}`, kind: 'web' });
  const apps = await db.selectFrom('applications').select('id').where('project_id', '=', projectId).execute();
  const tests = Array.from({ length: 60 }, (_, i) => ({
    id: randomUUID(),
    project_id: projectId,
    application_id: apps[i % apps.length]!.id,
    name: `Test case ${i + 1}`,
    goal: `Reach goal number ${i + 1} of the shop`,
    labels: ['smoke', i % 2 ? 'checkout' : 'login'],
    is_enabled: true,
    generation_status: 'COMPLETED' as const,
  }));
  await db.insertInto('test_cases').values(tests).execute();
  const planId = newId();
  await db
    .insertInto('test_plans')
    .values({ id: planId, short_id: newShortId('testPlan', 'Nightly'), project_id: projectId, name: 'Nightly' })
    .execute();
  const run = await insertRun(db, {
    projectId,
    planId,
    meta: { trigger: 'GITHUB', branch: 'main', commitHash: 'a'.repeat(40) },
    tests: tests.slice(0, 10).map((t) => ({
      testCase: { ...t, resume_from_test_case_id: null, wait_for_test_case_ids: [] },
      inPlan: true,
      environmentUrl: 'https://shop.example.com',
      device: null,
    })),
  });
  const done = new Date();
  await db
    .updateTable('runs')
    .set({ status: 'COMPLETED', result: 'PASSED', started_at: done, finished_at: done })
    .where('id', '=', run.id)
    .execute();
  await db
    .updateTable('run_test_cases')
    .set({ status: 'COMPLETED', result: 'PASSED', duration_ms: 1200, started_at: done, finished_at: done })
    .where('run_id', '=', run.id)
    .execute();
  return { token, runShortId: run.shortId };
}

function listen(fetch: (req: Request) => Response | Promise<Response>): Promise<{ server: ServerType; url: string }> {
  return new Promise((resolve, reject) => {
    // Port 0: the OS picks a free one, read back from the bound address.
    const server = serve({ fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) =>
      resolve({ server, url: `http://127.0.0.1:${info.port}` }),
    );
    server.once('error', reject);
  });
}

const close = (server: ServerType): Promise<void> =>
  new Promise((resolve) => {
    server.close(() => resolve());
    // autocannon's keep-alive sockets would otherwise hold close() open.
    if ('closeAllConnections' in server) server.closeAllConnections();
  });

async function load(url: string, token: string, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url,
    connections,
    duration: seconds,
    headers: { authorization: `Bearer ${token}` },
    // The load generator in its own thread: on the server's event loop it would steal the time being measured.
    workers: 1,
  });
}

interface Measured {
  result: autocannon.Result;
  /** CPU milliseconds per request: this process, and the database server when it is a local process. */
  apiCpuMs: number;
  dbCpuMs: number | undefined;
}

async function measure(url: string, token: string, serverCpu: (() => number) | undefined): Promise<Measured> {
  await load(url, token, warmup); // JIT, connection pools, token cache and prepared plans settle first
  const cpu = process.cpuUsage();
  const db = serverCpu?.();
  const result = await load(url, token, duration);
  const used = process.cpuUsage(cpu);
  const requests = Math.max(1, result.requests.total);
  return {
    result,
    apiCpuMs: (used.user + used.system) / 1000 / requests,
    dbCpuMs: db === undefined ? undefined : ((serverCpu!() - db) * 1000) / requests,
  };
}

interface Row {
  database: string;
  target: string;
  queries: string;
  measured: Measured;
  bare: Measured;
}

async function benchDatabase(
  open: (plugins: KyselyPlugin[]) => Promise<BenchDatabase> | BenchDatabase,
): Promise<{ label: string; rows: Row[] }> {
  // On the app's own handle (a `withPlugin` copy would lack the change feed the caches listen to).
  const counter = new QueryCounter();
  const { db, label, serverCpu, dispose } = await open([counter]);
  const blobDir = mkdtempSync(join(tmpdir(), 'proctor-bench-blobs-'));
  // Lazy: it connects on first use, and these routes never use Temporal, so the address is never dialled.
  const temporal = createTemporalClientProvider({ address: '127.0.0.1:1', namespace: 'default', taskQueue: 'bench' });
  const servers: ServerType[] = [];
  try {
    await migrateToLatest(db);
    const { token, runShortId } = await seed(db);
    const publicUrl = 'http://127.0.0.1:3000';
    const app = createApp({
      db,
      config: { appUrl: publicUrl, publicUrl, PROCTOR_URL_TTL_SECONDS: 900, PROCTOR_RUN_CONCURRENCY: 100 },
      temporal,
      blobs: createFsBlobStore({ dir: blobDir, secret: randomBytes(32).toString('hex'), publicUrl }),
      logger: silentLogger,
    });
    const proctor = await listen(app.fetch);
    servers.push(proctor.server);

    const paths = [`/v1/run/${runShortId}`, '/v1/test-cases?limit=50', '/v1/applications'];
    const queries = new Map<string, string>();
    let runBody: object | undefined;
    // Each cache starts listening for its changes on its first read; until the feed listens they read the
    // database every time, as right after a restart.
    for (const path of paths)
      await fetch(proctor.url + path, { headers: { authorization: `Bearer ${token}` } }).then((res) =>
        res.arrayBuffer(),
      );
    for (let waited = 0; changeFeedOf(db)?.listening === false && waited < 5_000; waited += 20)
      await new Promise((r) => setTimeout(r, 20));
    for (const path of paths) {
      // The second request is the steady state: the first also reads what the caches keep from then on (the
      // token, for the first path).
      const counts: number[] = [];
      for (let i = 0; i < 2; i++) {
        counter.count = 0;
        const res = await fetch(proctor.url + path, { headers: { authorization: `Bearer ${token}` } });
        if (!res.ok) throw new Error(`proctor ${path} answered ${res.status}: ${await res.text()}`);
        const body = (await res.json()) as object;
        runBody ??= body;
        counts.push(counter.count);
      }
      queries.set(path, `${counts[1]} (first ${counts[0]})`);
    }
    // The bare route serialises the run's body, the one CI clients poll, so both move comparable bytes.
    const bare = new Hono().get('/bare', (c) => c.json(runBody));
    const bareServer = await listen(bare.fetch);
    servers.push(bareServer.server);

    // On a shared machine the load moves within seconds: each route is compared with the bare route measured
    // just before it, and the bare row shows the median of those measurements.
    const rows: Row[] = [];
    const bares: Measured[] = [];
    for (const path of paths) {
      const bare = await measure(bareServer.url + '/bare', token, serverCpu);
      bares.push(bare);
      rows.push({
        database: label,
        target: path,
        queries: queries.get(path)!,
        measured: await measure(proctor.url + path, token, serverCpu),
        bare,
      });
    }
    const median = [...bares].sort((a, b) => a.result.requests.average - b.result.requests.average)[
      Math.floor(bares.length / 2)
    ]!;
    rows.push({ database: label, target: 'bare hono route (median)', queries: '0', measured: median, bare: median });
    return { label, rows };
  } finally {
    await Promise.all(servers.map(close));
    await temporal.close();
    await dispose();
    rmSync(blobDir, { recursive: true, force: true });
  }
}

process.stdout.write(
  `${connections} connections, ${duration} s per target after ${warmup} s warm-up; databases: ${kinds.join(', ')}\n\n`,
);
const all: Row[] = [];
for (const kind of kinds) {
  const open =
    kind === 'pglite' ? openPglite : (plugins: KyselyPlugin[]) => openPostgres(plugins, kind === 'postgres-socket');
  const { label, rows } = await benchDatabase(open);
  process.stdout.write(`measured on ${label}\n`);
  all.push(...rows);
}

const ratio = (x: number, y: number) => (y > 0 ? (x / y).toFixed(2) : 'n/a');
const header = [
  'database',
  'target',
  'queries/req',
  'req/s',
  'p50 ms',
  'p99 ms',
  'bare req/s',
  'req/s ÷ bare',
  'CPU ms/req api + db',
  'CPU: bare ÷ target',
  'errors',
  'non-2xx',
];
const cpuMs = (m: Measured) => m.apiCpuMs + (m.dbCpuMs ?? 0);
const lines = all.map((r) => [
  r.database.includes('Unix socket') ? 'Postgres (socket)' : r.database.split(' ')[0]!,
  r.target.replace(/run_\w+/, '{shortId}'),
  r.queries,
  String(Math.round(r.measured.result.requests.average)),
  String(r.measured.result.latency.p50),
  String(r.measured.result.latency.p99),
  String(Math.round(r.bare.result.requests.average)),
  ratio(r.measured.result.requests.average, r.bare.result.requests.average),
  `${r.measured.apiCpuMs.toFixed(2)} + ${r.measured.dbCpuMs === undefined ? '–' : r.measured.dbCpuMs.toFixed(2)}`,
  ratio(cpuMs(r.bare), cpuMs(r.measured)),
  String(r.measured.result.errors),
  String(r.measured.result.non2xx),
]);
const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
const format = (cells: string[]) =>
  '| ' + cells.map((c, i) => (i < 3 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ') + ' |\n';
process.stdout.write('\n' + format(header));
process.stdout.write(
  '|' + widths.map((w, i) => (i < 3 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|') + '|\n',
);
for (const line of lines) process.stdout.write(format(line));
process.exit(0);
