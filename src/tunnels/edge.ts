// The tunnel edge, inside the API process: tunnel clients hold WebSockets here, and requests for a tunnel
// hostname (from a worker's egress proxy, from another edge, or from anyone for a public tunnel) are sent
// down one of them. Each connection is a Postgres row its edge heartbeats, so every process can count a
// tunnel's connections and find an edge that holds one.
//
// This file wires the parts together; each part takes the shared state (EdgeContext) explicitly:
// edge-connections.ts (clients' WebSockets, frames, heartbeat), edge-resolve.ts (which connection serves a
// hostname), edge-streams.ts (a stream on a connection), edge-requests.ts and edge-upgrade.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { DB } from '../db/database.js';
import { deleteConnection } from '../db/queries/tunnels.js';
import { connectionHeartbeatMs, parseTunnelHost } from '../domain/tunnels.js';
import type { Logger } from '../logger.js';
import { acceptClient, allConnections, heartbeatTick, type EdgeContext } from './edge-connections.js';
import { serveRequest } from './edge-requests.js';
import { serveUpgrade } from './edge-upgrade.js';
import { CloseCode, tunnelConnectPath } from './protocol.js';

export interface TunnelEdgeOptions {
  db: DB;
  logger: Logger;
  /** The tunnel domain (`tunnel.example.com`, a port allowed). */
  domain: string;
  /** How workers and other edges reach this process. */
  edgeUrl: string;
  /** Shared with the workers; a request carrying it comes from Proctor's agents. Without it only public tunnels are served. */
  internalSecret?: string;
  heartbeatMs?: number;
}

export interface TunnelEdge {
  /** Serves the request when its Host is a tunnel hostname; false leaves it to the API. */
  handleRequest(req: IncomingMessage, res: ServerResponse): boolean;
  /** Takes tunnel-client connections and upgrades for tunnel hostnames; false leaves the socket to the caller. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Closes this edge's connections of a deleted tunnel now, rather than at the next heartbeat. */
  disconnect(runnerId: string): void;
  /** Live connections held here, per runner id. */
  connectionCounts(): Map<string, number>;
  close(): Promise<void>;
}

export function createTunnelEdge(options: TunnelEdgeOptions): TunnelEdge {
  const { db, logger, domain, edgeUrl, internalSecret } = options;
  const ctx: EdgeContext = {
    db,
    logger,
    domain,
    edgeUrl,
    internalSecret,
    wss: new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 * 1024 }),
    byTunnel: new Map(),
    roundRobin: new Map(),
    tunnelCache: new Map(),
  };

  const heartbeat = setInterval(() => heartbeatTick(ctx), options.heartbeatMs ?? connectionHeartbeatMs);
  heartbeat.unref();

  return {
    handleRequest(req, res) {
      if (!parseTunnelHost(req.headers.host ?? '', domain)) return false;
      serveRequest(ctx, req, res).catch((err: unknown) => {
        logger.error('tunnel request failed', { err });
        if (!res.headersSent) res.writeHead(502).end();
        else res.destroy();
      });
      return true;
    },
    handleUpgrade(req, socket, head) {
      const path = (req.url ?? '').split('?')[0];
      if (path === tunnelConnectPath && !parseTunnelHost(req.headers.host ?? '', domain)) {
        acceptClient(ctx, req, socket, head).catch((err: unknown) => {
          logger.error('tunnel client connection failed', { err });
          socket.destroy();
        });
        return true;
      }
      if (!parseTunnelHost(req.headers.host ?? '', domain)) return false;
      serveUpgrade(ctx, req, socket, head).catch(() => socket.destroy());
      return true;
    },
    disconnect(runnerId) {
      ctx.tunnelCache.clear();
      for (const conn of allConnections(ctx))
        if (conn.tunnel.runnerId === runnerId) conn.ws.close(CloseCode.deleted, 'tunnel deleted');
    },
    connectionCounts() {
      const counts = new Map<string, number>();
      for (const set of ctx.byTunnel.values())
        for (const conn of set) counts.set(conn.tunnel.runnerId, (counts.get(conn.tunnel.runnerId) ?? 0) + 1);
      return counts;
    },
    async close() {
      clearInterval(heartbeat);
      const conns = allConnections(ctx);
      for (const conn of conns) conn.ws.terminate();
      await Promise.all(conns.map((c) => deleteConnection(db, c.id).catch(() => undefined)));
      ctx.wss.close();
    },
  };
}
