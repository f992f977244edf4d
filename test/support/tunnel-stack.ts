// The parts a remote-tunnel test needs, all real: Postgres, the API with its tunnel edge on a real HTTP
// server, a local app on a loopback port, a TCP relay whose connections a test can cut, and `proctor tunnel`
// as a child process.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer as createTcpServer, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { createApiServer } from '../../src/api/server.js';
import type { DB } from '../../src/db/database.js';
import { seedProject } from '../../src/db/queries/admin.js';
import { silentLogger } from '../../src/logger.js';
import { createFsBlobStore } from '../../src/storage/fs.js';
import { createTemporalClientProvider } from '../../src/temporal/client.js';
import { createTunnelEdge, type TunnelEdge } from '../../src/tunnels/edge.js';
import { freshDatabase, type Tenant } from './app-context.js';
import { freePort, listenOnFreePort, requestBuffered, waitFor, type BufferedResponse } from './net.js';
import { proctorArgs } from './proctor-cli.js';

export interface TunnelStack {
  db: DB;
  apiUrl: string;
  domain: string;
  secret: string;
  edge: TunnelEdge;
  tenant: Tenant;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export const testTunnelDomain = 'tunnel.proctor.test';

export async function startTunnelStack(
  options: { db?: DB; heartbeatMs?: number; secret?: string } = {},
): Promise<TunnelStack> {
  const db = options.db ?? (await freshDatabase('postgres'));
  const blobDir = mkdtempSync(join(tmpdir(), 'proctor-blobs-'));
  const secret = options.secret ?? randomBytes(24).toString('hex');
  const domain = testTunnelDomain;
  const port = await freePort();
  const apiUrl = `http://127.0.0.1:${port}`;
  const edge = createTunnelEdge({
    db,
    logger: silentLogger,
    domain,
    edgeUrl: apiUrl,
    internalSecret: secret,
    heartbeatMs: options.heartbeatMs,
  });
  const temporal = createTemporalClientProvider({
    address: inject('temporalAddress'),
    namespace: 'default',
    taskQueue: `test-${randomBytes(4).toString('hex')}`,
  });
  const app = createApp({
    db,
    config: {
      appUrl: 'https://app.proctor.test',
      publicUrl: apiUrl,
      PROCTOR_URL_TTL_SECONDS: 900,
      PROCTOR_RUN_CONCURRENCY: 100,
    },
    temporal,
    blobs: createFsBlobStore({ dir: blobDir, secret: randomBytes(32).toString('hex'), publicUrl: apiUrl }),
    logger: silentLogger,
    tunnels: { domain, edge },
  });
  const server: Server = createApiServer(app, edge);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const tenant = await seedProject(db, { organization: 'Acme', project: `Tunnels ${randomBytes(3).toString('hex')}` });

  return {
    db,
    apiUrl,
    domain,
    secret,
    edge,
    tenant,
    async call(method, path, body) {
      const res = await fetch(`${apiUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${tenant.token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
    },
    async close() {
      await edge.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await temporal.close();
      if (!options.db) await db.destroy();
      rmSync(blobDir, { recursive: true, force: true });
    },
  };
}

export { bigBody, bigDigest, bigDownloadBytes, startLocalApp } from './local-app.js';

/** A TCP relay in front of the API: the test cuts the tunnel client's connections and refuses new ones. */
export async function startRelay(
  targetPort: number,
): Promise<{ port: number; open(): number; cut(n: number): void; refuse(on: boolean): void; close(): Promise<void> }> {
  // Only WebSocket connections count: the client's API calls go through the relay too.
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  let refusing = false;
  const server = createTcpServer((client) => {
    if (refusing) return void client.destroy();
    const upstream = connect(targetPort, '127.0.0.1');
    const pair = { client, upstream };
    client.once('data', (first: Buffer) => {
      if (/^upgrade:\s*websocket/im.test(first.toString('latin1'))) pairs.add(pair);
    });
    client.pipe(upstream).pipe(client);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  const port = await listenOnFreePort(server);
  return {
    port,
    open: () => pairs.size,
    cut(n) {
      for (const pair of [...pairs].slice(0, n)) {
        pairs.delete(pair);
        pair.client.destroy();
        pair.upstream.destroy();
      }
    },
    refuse(on) {
      refusing = on;
    },
    async close() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      await new Promise((r) => server.close(r));
    },
  };
}

/** A request to the API's address for a tunnel hostname, as a worker's proxy or a person would send it. */
export function requestTunnel(
  apiUrl: string,
  options: { host: string; path?: string; method?: string; headers?: Record<string, string>; body?: Buffer },
): Promise<BufferedResponse> {
  const base = new URL(apiUrl);
  return requestBuffered(
    {
      hostname: base.hostname,
      port: base.port,
      path: options.path ?? '/',
      method: options.method ?? 'GET',
      headers: { ...options.headers, host: options.host },
    },
    options.body,
  );
}

export interface TunnelProcess {
  child: ChildProcess;
  output(): string;
  /** The URL printed for a local port. */
  urlFor(port: number): string;
  runnerId(): string;
  exited: Promise<number | null>;
}

/** Runs `proctor tunnel` as its own process and waits until it printed its URLs. */
export async function spawnTunnel(args: string[], env: Record<string, string>): Promise<TunnelProcess> {
  const child = spawn(process.execPath, proctorArgs('tunnel', ...args), {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await waitFor(
    async () => /tunnel tunnel_\w+/.test(out) || child.exitCode !== null,
    30_000,
    'proctor tunnel to print its URLs',
  );
  if (child.exitCode !== null) throw new Error(`proctor tunnel exited: ${out}`);
  return {
    child,
    output: () => out,
    urlFor(port) {
      const match = new RegExp(`localhost:${port} -> (\\S+)`).exec(out);
      if (!match) throw new Error(`no URL for port ${port} in: ${out}`);
      return match[1]!;
    },
    runnerId: () => /tunnel (tunnel_\w+)/.exec(out)![1]!,
    exited,
  };
}
