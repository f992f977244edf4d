// What a remote tunnel costs: requests/s and latency of a small page, and the time of a 10 MB download,
// straight from the local app versus through the tunnel. Everything is real: the API with its tunnel edge
// (PGlite in memory), `proctor tunnel` as its own process holding 4 WebSockets, and for the agents' path the
// worker's egress proxy with its tunnel router.
//
//   node --import tsx bench/tunnel.ts
//   BENCH_DURATION=5   seconds of autocannon per target (default 10), after a 2 s warm-up each
//   BENCH_SAMPLES=300  sequential small requests per target for the latency columns (default 500)
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { createApp } from '../src/api/app.js';
import { createApiServer } from '../src/api/server.js';
import { startEgressProxy } from '../src/browser/context/egress-proxy.js';
import { createNetworkGuard } from '../src/browser/context/network-guard.js';
import { createDatabase, migrateToLatest } from '../src/db/database.js';
import { seedProject } from '../src/db/queries/admin.js';
import { silentLogger } from '../src/logger.js';
import { createFsBlobStore } from '../src/storage/fs.js';
import { createTemporalClientProvider } from '../src/temporal/client.js';
import { createTunnelRouter } from '../src/tunnels/agent-router.js';
import { createTunnelEdge } from '../src/tunnels/edge.js';
import { agentProjectHeader, agentSecretHeader } from '../src/tunnels/protocol.js';
import { bigDigest, bigDownloadBytes, startLocalApp } from '../test/support/local-app.js';
import { freePort, requestBuffered, waitFor, type BufferedResponse } from '../test/support/net.js';
import { watchdog } from './support.js';

const duration = Number(process.env.BENCH_DURATION ?? 10);
const samples = Number(process.env.BENCH_SAMPLES ?? 500);
const downloads = 5;
const connections = 10;

watchdog(3 * (duration + 2) + 180, 'bench/tunnel');

interface Target {
  name: string;
  /** Where the TCP connection goes, the request target (path or absolute URL) and the headers. */
  port: number;
  target: (path: string) => string;
  headers: Record<string, string>;
}

const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });

function get(t: Target, path: string): Promise<BufferedResponse> {
  return requestBuffered({
    host: '127.0.0.1',
    port: t.port,
    path: t.target(path),
    headers: t.headers,
    agent: keepAlive,
  });
}

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function latency(t: Target): Promise<{ median: number; p90: number }> {
  for (let i = 0; i < 50; i += 1) await get(t, '/small');
  const times: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    const started = performance.now();
    const res = await get(t, '/small');
    times.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`${t.name}: /small answered ${res.status}`);
  }
  times.sort((a, b) => a - b);
  return { median: percentile(times, 50), p90: percentile(times, 90) };
}

async function throughput(t: Target): Promise<number> {
  const run = (seconds: number) =>
    // The request target goes into the request line as given: a path, or an absolute URL for the proxy.
    autocannon({
      url: `http://127.0.0.1:${t.port}`,
      requests: [{ method: 'GET', path: t.target('/small'), headers: t.headers }],
      connections,
      duration: seconds,
    });
  await run(2);
  const result = await run(duration);
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${t.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

async function download(t: Target): Promise<{ median: number; mbPerSecond: number }> {
  const times: number[] = [];
  for (let i = 0; i < downloads + 1; i += 1) {
    const started = performance.now();
    const res = await get(t, '/big');
    const ms = performance.now() - started;
    if (res.body.length !== bigDownloadBytes || createHash('sha256').update(res.body).digest('hex') !== bigDigest)
      throw new Error(`${t.name}: the 10 MB body arrived damaged`);
    if (i > 0) times.push(ms);
  }
  times.sort((a, b) => a - b);
  const median = percentile(times, 50);
  return { median, mbPerSecond: bigDownloadBytes / 1024 / 1024 / (median / 1000) };
}

async function main(): Promise<void> {
  const db = createDatabase({ kind: 'pglite' });
  await migrateToLatest(db);
  const tenant = await seedProject(db, { organization: 'Bench', project: 'Tunnel' });
  const blobDir = mkdtempSync(join(tmpdir(), 'proctor-bench-'));
  const port = await freePort();
  const apiUrl = `http://127.0.0.1:${port}`;
  const domain = 'tunnel.bench.test';
  const secret = randomBytes(24).toString('hex');
  const edge = createTunnelEdge({ db, logger: silentLogger, domain, edgeUrl: apiUrl, internalSecret: secret });
  const temporal = createTemporalClientProvider({ address: '127.0.0.1:1', namespace: 'default', taskQueue: 'bench' });
  const app = createApp({
    db,
    config: { appUrl: apiUrl, publicUrl: apiUrl, PROCTOR_URL_TTL_SECONDS: 900, PROCTOR_RUN_CONCURRENCY: 100 },
    temporal,
    blobs: createFsBlobStore({ dir: blobDir, secret: randomBytes(32).toString('hex'), publicUrl: apiUrl }),
    logger: silentLogger,
    tunnels: { domain, edge },
  });
  const server = createApiServer(app, edge);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  const local = await startLocalApp();

  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli.ts', 'tunnel', '--port', `web=${local.port}`, '--api-url', apiUrl],
    {
      env: { ...process.env, PROCTOR_TOKEN: tenant.token },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await waitFor(async () => /connections 4\/4/.test(out), 30_000, 'proctor tunnel to hold 4 connections');
  const tunnelUrl = new URL(/-> (\S+)/.exec(out)![1]!);

  const router = createTunnelRouter({ db, domain, internalSecret: secret });
  const proxy = await startEgressProxy(
    createNetworkGuard({ allowPrivateNetworks: false, isTunnelHost: router.isTunnelHost }),
    undefined,
    router,
    tenant.projectId,
  );
  const proxyPort = Number(new URL(proxy.server).port);

  const targets: Target[] = [
    { name: 'direct to the local app', port: local.port, target: (p) => p, headers: {} },
    {
      name: 'tunnel edge (API → WebSocket → client)',
      port,
      target: (p) => p,
      headers: { host: tunnelUrl.host, [agentSecretHeader]: secret, [agentProjectHeader]: tenant.projectId },
    },
    {
      name: 'agent path (egress proxy → edge → client)',
      port: proxyPort,
      target: (p) => `${tunnelUrl.origin}${p}`,
      headers: { host: tunnelUrl.host },
    },
  ];

  const rows: string[][] = [];
  for (const t of targets) {
    const lat = await latency(t);
    const rps = await throughput(t);
    const dl = await download(t);
    rows.push([
      t.name,
      rps.toFixed(0),
      lat.median.toFixed(2),
      lat.p90.toFixed(2),
      dl.median.toFixed(0),
      dl.mbPerSecond.toFixed(0),
    ]);
  }
  const directMedian = Number(rows[0]![2]);
  const header = ['path', 'small req/s', 'median ms', 'p90 ms', '10 MB ms', 'MB/s', 'added ms (median)'];
  const table = rows.map((r) => [...r, (Number(r[2]) - directMedian).toFixed(2)]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  process.stdout.write(
    [
      `small page: ${samples} sequential requests (keep-alive) for latency, autocannon ${connections} connections × ${duration} s for req/s;`,
      `10 MB: median of ${downloads} downloads after one warm-up, body checked by sha-256`,
      '',
      line(header),
      `|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`,
      ...table.map(line),
      '',
    ].join('\n'),
  );

  child.kill('SIGINT');
  await new Promise((resolve) => child.once('exit', resolve));
  await proxy.close();
  keepAlive.destroy();
  await edge.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await local.close();
  await temporal.close();
  await db.destroy();
  rmSync(blobDir, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
