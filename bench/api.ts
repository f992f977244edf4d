// Throughput and latency of the real API on a cheap authenticated read (GET /v1/applications), next to a
// bare Hono route returning the same JSON: the ratio is what Proctor's stack costs per request
// (request-id + auth middleware, token lookup, one list query, zod-openapi response).
//
//   node --import tsx bench/api.ts                      PGlite in memory
//   DATABASE_URL=postgres://… node --import tsx bench/api.ts
//       real Postgres: a fresh database `bench_<random>` is created in that server (the role needs
//       CREATEDB) and dropped at the end, so any existing data is left alone.
//   BENCH_DURATION=5  seconds of measurement per target (default 10), after a 2 s warm-up each.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import autocannon from 'autocannon';
import { Hono } from 'hono';
import pg from 'pg';
import { createApp } from '../src/api/app.js';
import { createDatabase, migrateToLatest, type DB } from '../src/db/database.js';
import { seedProject } from '../src/db/queries/admin.js';
import { createApplication } from '../src/db/queries/applications.js';
import { silentLogger } from '../src/logger.js';
import { createFsBlobStore } from '../src/storage/fs.js';
import { createTemporalClientProvider } from '../src/temporal/client.js';

const duration = Number(process.env.BENCH_DURATION ?? 10);
if (!Number.isFinite(duration) || duration <= 0) throw new Error('BENCH_DURATION must be a positive number of seconds');
const warmup = 2;
const connections = 50;
const path = '/v1/applications';

// Whatever goes wrong (a hung socket, a stuck pool), the process ends: two targets × (warm-up + run) plus set-up.
setTimeout(() => {
  process.stderr.write('bench: timed out\n');
  process.exit(1);
}, (2 * (warmup + duration) + 60) * 1000).unref();

/** The database under test and how to get rid of it. */
async function openBenchDatabase(): Promise<{ db: DB; label: string; dispose(): Promise<void> }> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const db = createDatabase({ kind: 'pglite' });
    return { db, label: 'PGlite (in memory)', dispose: () => db.destroy() };
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
  // The production default pool size (DATABASE_POOL_SIZE), so the figure is what `proctor api` would do.
  const db = createDatabase({ kind: 'postgres', url: benchUrl.toString(), maxConnections: 10 });
  return {
    db,
    label: `Postgres (${benchUrl.host}, database ${name})`,
    async dispose() {
      await db.destroy();
      // No `with (force)`: the pool's sockets may still be closing, and a forced drop would kill them with
      // an error event nobody listens to. A plain drop waits up to 5 s for them to go.
      await admin(`drop database "${name}"`);
    },
  };
}

function listen(fetch: (req: Request) => Response | Promise<Response>): Promise<{ server: ServerType; url: string }> {
  return new Promise((resolve, reject) => {
    // Port 0: the OS picks a free one, read back from the bound address.
    const server = serve({ fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) => resolve({ server, url: `http://127.0.0.1:${info.port}` }));
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
    url: url + path,
    connections,
    duration: seconds,
    headers: { authorization: `Bearer ${token}` },
    // The load generator in its own thread: on the server's event loop it would steal the time being measured.
    workers: 1,
  });
}

async function measure(url: string, token: string): Promise<autocannon.Result> {
  await load(url, token, warmup); // JIT, connection pools and prepared plans settle before the figures count
  return load(url, token, duration);
}

const { db, label, dispose } = await openBenchDatabase();
const blobDir = mkdtempSync(join(tmpdir(), 'proctor-bench-blobs-'));
// Lazy: it connects on first use, and this route never uses Temporal, so the address is never dialled.
const temporal = createTemporalClientProvider({ address: '127.0.0.1:1', namespace: 'default', taskQueue: 'bench' });
const servers: ServerType[] = [];
try {
  await migrateToLatest(db);
  const { projectId, token } = await seedProject(db, { organization: 'Bench', project: 'Bench' });
  for (let i = 1; i <= 20; i++) await createApplication(db, projectId, { name: `Application ${i}`, kind: 'web' });

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

  // The bare route serialises the very body Proctor answers, so both move the same bytes.
  const sample = await fetch(proctor.url + path, { headers: { authorization: `Bearer ${token}` } });
  if (!sample.ok) throw new Error(`proctor ${path} answered ${sample.status}: ${await sample.text()}`);
  const body = (await sample.json()) as object;
  const bare = new Hono().get(path, (c) => c.json(body));
  const bareServer = await listen(bare.fetch);
  servers.push(bareServer.server);

  process.stdout.write(`database: ${label}; ${connections} connections, ${duration} s per target after ${warmup} s warm-up, ${JSON.stringify(body).length} B body\n\n`);
  const results: [string, autocannon.Result][] = [];
  results.push([`proctor GET ${path}`, await measure(proctor.url, token)]);
  results.push(['bare hono route', await measure(bareServer.url, token)]);

  const row = (cells: (string | number)[]) => cells.map((c, i) => (i === 0 ? String(c).padEnd(30) : String(c).padStart(12))).join('') + '\n';
  process.stdout.write(row(['target', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'non-2xx']));
  for (const [name, r] of results) {
    process.stdout.write(row([name, Math.round(r.requests.average), r.latency.p50, r.latency.p99, r.errors, r.non2xx]));
  }
  const [p, b] = [results[0]![1], results[1]![1]];
  const ratio = (x: number, y: number) => (y > 0 ? (x / y).toFixed(2) : 'n/a');
  process.stdout.write(
    `\nproctor / bare: req/s ${ratio(p.requests.average, b.requests.average)}, ` +
      `p50 ${ratio(p.latency.p50, b.latency.p50)}, p99 ${ratio(p.latency.p99, b.latency.p99)}\n`,
  );
} finally {
  await Promise.all(servers.map(close));
  await temporal.close();
  await dispose();
  rmSync(blobDir, { recursive: true, force: true });
}
process.exit(0);
