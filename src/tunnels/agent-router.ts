// The worker's side of remote tunnels: the egress proxy of every browser context hands requests for tunnel
// hostnames here instead of resolving them. They go, with the internal secret that marks them as Proctor's
// agents and the project the context works for, to an API process that holds one of the tunnel's live
// connections (found in Postgres).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { DB } from '../db/database.js';
import { liveEdgeUrls } from '../db/queries/tunnels.js';
import { parseTunnelHost } from '../domain/tunnels.js';
import { forwardRequestToEdge, forwardUpgradeToEdge } from './forward.js';
import { agentProjectHeader, agentSecretHeader, rawResponseHead } from './protocol.js';

export interface TunnelRouter {
  isTunnelHost(hostname: string): boolean;
  /** A proxy request (absolute URL) for a tunnel hostname, from a browser context working for `projectId` (none: public tunnels only). */
  handleRequest(req: IncomingMessage, res: ServerResponse, projectId?: string): void;
  /** A CONNECT tunnel to a tunnel hostname (Chromium's way to a ws:// URL through a proxy): HTTP is spoken inside. */
  handleConnect(socket: Duplex, head: Buffer, projectId?: string): void;
}

export interface TunnelRouterOptions {
  db: DB;
  domain: string;
  internalSecret: string;
  /** How long the edges of a tunnel are remembered. */
  cacheMs?: number;
}

const notConnected = 'This remote tunnel is not connected: is `proctor tunnel` running?\n';

export function createTunnelRouter(options: TunnelRouterOptions): TunnelRouter {
  const { db, domain, internalSecret, cacheMs = 1_000 } = options;
  const edges = new Map<string, { at: number; urls: Promise<string[]> }>();
  // Always sent, empty without a project, so a header of that name the page set never passes.
  const extraHeaders = (projectId: string | undefined) => ({
    [agentSecretHeader]: internalSecret,
    [agentProjectHeader]: projectId ?? '',
  });
  // The project of each CONNECT tunnel's socket, for the requests spoken inside it.
  const socketProjects = new WeakMap<object, string | undefined>();

  async function pickEdge(host: string): Promise<string | undefined> {
    const parsed = parseTunnelHost(host, domain);
    if (!parsed) return undefined;
    let hit = edges.get(parsed.label);
    if (!hit || Date.now() - hit.at > cacheMs) {
      if (edges.size > 1000) edges.clear();
      hit = { at: Date.now(), urls: liveEdgeUrls(db, parsed.label) };
      edges.set(parsed.label, hit);
    }
    const urls = await hit.urls.catch(() => []);
    return urls.length ? urls[Math.floor(Math.random() * urls.length)] : undefined;
  }

  const hostOf = (req: IncomingMessage): string => {
    try {
      return new URL(req.url ?? '').host;
    } catch {
      return req.headers.host ?? '';
    }
  };

  function handleRequest(req: IncomingMessage, res: ServerResponse, projectId?: string): void {
    pickEdge(hostOf(req)).then(
      (edge) => {
        if (edge) forwardRequestToEdge(edge, req, res, extraHeaders(projectId));
        else res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' }).end(notConnected);
      },
      () => res.writeHead(502).end(),
    );
  }

  function handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, projectId?: string): void {
    socket.on('error', () => socket.destroy());
    pickEdge(req.headers.host ?? '').then(
      (edge) => {
        if (edge) forwardUpgradeToEdge(edge, req, socket, head, extraHeaders(projectId));
        else socket.end(rawResponseHead(502, 'Bad Gateway', ['Content-Length', '0', 'Connection', 'close']));
      },
      () => socket.destroy(),
    );
  }

  // Serves the HTTP spoken inside CONNECT tunnels; it never listens on a port.
  const inner = createServer((req, res) => {
    if (!parseTunnelHost(req.headers.host ?? '', domain)) res.writeHead(421).end();
    else handleRequest(req, res, socketProjects.get(req.socket));
  });
  inner.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!parseTunnelHost(req.headers.host ?? '', domain)) socket.destroy();
    else handleUpgrade(req, socket, head, socketProjects.get(socket));
  });

  return {
    isTunnelHost: (hostname) => parseTunnelHost(hostname, domain) !== undefined,
    handleRequest,
    handleConnect(socket, head, projectId) {
      socketProjects.set(socket, projectId);
      if (head.length > 0) socket.unshift(head);
      inner.emit('connection', socket);
    },
  };
}
