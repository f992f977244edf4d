// The egress proxy of the SSRF guard (see network-guard.ts): every hop of every request a browser context makes
// reaches it, is checked, and connects to the very address that was checked.
import { createServer, request as httpRequest, Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { normalizeHost, type BlockedListener, type NetworkGuard } from './network-guard.js';
import type { TunnelRouter } from '../../tunnels/agent-router.js';
import { endToEndHeaders, relayResponse } from '../../tunnels/protocol.js';

export interface EgressProxy {
  /** For `browser.newContext({ proxy: { server, bypass: '<-loopback>' } })`. */
  server: string;
  close(): Promise<void>;
}

function splitAuthority(authority: string): { host: string; port: number } | undefined {
  const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(authority);
  return match ? { host: normalizeHost(match[1]!), port: Number(match[2]) } : undefined;
}

/**
 * Starts the forward proxy one browser context sends all its traffic through (see the top of this file).
 * `projectId` is the project the context works for: remote tunnels private to it are reachable, others' are not.
 * A refused plain-HTTP request gets its connection closed (the page sees ERR_EMPTY_RESPONSE), a refused
 * CONNECT a 403 (ERR_TUNNEL_CONNECTION_FAILED); `onBlocked` hears about both.
 */
export async function startEgressProxy(
  guard: NetworkGuard,
  onBlocked?: BlockedListener,
  tunnels?: TunnelRouter,
  projectId?: string,
): Promise<EgressProxy> {
  const sockets = new Set<Duplex>();
  const track = (socket: Duplex): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const agent = new Agent({ keepAlive: true, lookup: guard.lookup });

  async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
      if (target.protocol !== 'http:') throw new Error('not http');
    } catch {
      res.writeHead(400).end('proxy requests only');
      return;
    }
    // A remote tunnel's hostname is never resolved: the request goes to the tunnel edge holding its client.
    if (tunnels?.isTunnelHost(target.hostname)) {
      tunnels.handleRequest(req, res, projectId);
      return;
    }
    const verdict = await guard.check(target.href);
    if (!verdict.allowed) {
      if (!verdict.unresolved) onBlocked?.(target.href, verdict.reason);
      req.socket.destroy();
      return;
    }
    const upstream = httpRequest(
      {
        agent,
        host: normalizeHost(target.hostname),
        port: target.port || 80,
        method: req.method,
        path: `${target.pathname}${target.search}`,
        headers: endToEndHeaders(req.rawHeaders),
      },
      (response) => relayResponse(response, res),
    );
    // An upstream failure looks to the page like the connection failing, as it would without the proxy.
    upstream.on('error', () => req.socket.destroy());
    req.on('error', () => upstream.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  }

  async function tunnel(req: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    track(client);
    client.on('error', () => client.destroy());
    const authority = splitAuthority(req.url ?? '');
    if (!authority) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    if (tunnels?.isTunnelHost(authority.host)) {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      tunnels.handleConnect(client, head, projectId);
      return;
    }
    const shown = `${authority.port === 80 ? 'http' : 'https'}://${authority.host.includes(':') ? `[${authority.host}]` : authority.host}:${authority.port}/`;
    const verdict = await guard.check(shown);
    if (!verdict.allowed) {
      if (!verdict.unresolved) onBlocked?.(shown, verdict.reason);
      client.end(`HTTP/1.1 ${verdict.unresolved ? '502 Bad Gateway' : '403 Forbidden'}\r\n\r\n`);
      return;
    }
    const upstream: Socket = connect({ host: authority.host, port: authority.port, lookup: guard.lookup });
    track(upstream);
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
      upstream.once('close', () => client.destroy());
    });
    upstream.on('error', () => (connected ? client.destroy() : client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n')));
    client.once('close', () => upstream.destroy());
  }

  const server = createServer();
  server.on('connection', track);
  server.on('request', (req, res) => forward(req, res).catch(() => req.socket.destroy()));
  server.on('connect', (req, socket: Duplex, head: Buffer) => tunnel(req, socket, head).catch(() => socket.destroy()));
  // Chromium tunnels WebSockets with CONNECT; an upgrade sent to the proxy itself is not ours to serve.
  server.on('upgrade', (_req, socket: Duplex) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('egress proxy has no TCP address');

  return {
    server: `http://127.0.0.1:${address.port}`,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      agent.destroy();
      await closed;
    },
  };
}
