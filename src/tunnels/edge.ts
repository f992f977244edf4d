// The tunnel edge, inside the API process: tunnel clients hold WebSockets here, and requests for a tunnel
// hostname (from a worker's egress proxy, from another edge, or from anyone for a public tunnel) are sent
// down one of them. Each connection is a Postgres row its edge heartbeats, so every process can count a
// tunnel's connections and find an edge that holds one.
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { timingSafeEqual } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';
import type { DB } from '../db/database.js';
import {
  deleteConnection,
  findTunnelByLabel,
  findTunnelByTokenHash,
  heartbeatConnections,
  insertConnection,
  liveEdgeUrls,
  type TunnelRow,
} from '../db/queries/tunnels.js';
import { connectionHeartbeatMs, parseTunnelHost } from '../domain/tunnels.js';
import { hashToken, newId } from '../ids.js';
import type { Logger } from '../logger.js';
import { forwardRequestToEdge, forwardUpgradeToEdge } from './forward.js';
import {
  agentProjectHeader,
  agentSecretHeader,
  CloseCode,
  createPauser,
  decodeFrame,
  encodeFrame,
  endToEndHeaders,
  FrameType,
  nextStreamId,
  parseHead,
  rawResponseHead,
  relayedHeader,
  tunnelConnectPath,
  writable,
  type ResponseHead,
} from './protocol.js';

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

interface StreamSink {
  onResponse(head: ResponseHead): void;
  onData(data: Buffer): void;
  onEnd(): void;
  onAbort(reason: string): void;
}

interface EdgeConnection {
  id: string;
  tunnel: TunnelRow;
  ws: WebSocket;
  streams: Map<number, StreamSink>;
  lastStream: number;
  pauser: ReturnType<typeof createPauser>;
  lastSeen: number;
}

const tunnelCacheMs = 2_000;
const silenceLimitMs = 30_000;

export function createTunnelEdge(options: TunnelEdgeOptions): TunnelEdge {
  const { db, logger, domain, edgeUrl, internalSecret } = options;
  const wss = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 * 1024 });
  const byTunnel = new Map<string, Set<EdgeConnection>>();
  const roundRobin = new Map<string, number>();
  const tunnelCache = new Map<string, { at: number; row: TunnelRow | undefined }>();

  const all = (): EdgeConnection[] => [...byTunnel.values()].flatMap((set) => [...set]);

  const heartbeat = setInterval(() => {
    for (const conn of all()) {
      // A client silent for this long is gone even if TCP has not noticed. A connection paused because a
      // destination is full reads nothing, pongs included, and is not judged.
      if (!conn.ws.isPaused && Date.now() - conn.lastSeen > silenceLimitMs) {
        conn.ws.terminate();
        continue;
      }
      conn.ws.ping();
    }
    const conns = all();
    heartbeatConnections(
      db,
      conns.map((c) => c.id),
    ).then(
      ({ deleted, expired }) => {
        for (const conn of conns) {
          if (deleted.includes(conn.id)) conn.ws.close(CloseCode.deleted, 'tunnel deleted');
          else if (expired.includes(conn.id)) conn.ws.close(CloseCode.expired, 'tunnel expired');
        }
      },
      (err: unknown) => logger.warn('tunnel heartbeat failed', { err }),
    );
  }, options.heartbeatMs ?? connectionHeartbeatMs);
  heartbeat.unref();

  function isAgent(req: IncomingMessage): boolean {
    const given = req.headers[agentSecretHeader];
    if (!internalSecret || typeof given !== 'string') return false;
    const a = Buffer.from(given);
    const b = Buffer.from(internalSecret);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  async function tunnelByLabel(label: string): Promise<TunnelRow | undefined> {
    const hit = tunnelCache.get(label);
    if (hit && Date.now() - hit.at < tunnelCacheMs) return hit.row;
    const row = await findTunnelByLabel(db, label);
    if (tunnelCache.size > 1000) tunnelCache.clear();
    tunnelCache.set(label, { at: Date.now(), row });
    return row;
  }

  function pickConnection(tunnelId: string): EdgeConnection | undefined {
    const open = [...(byTunnel.get(tunnelId) ?? [])].filter((c) => c.ws.readyState === c.ws.OPEN);
    if (open.length === 0) return undefined;
    const next = ((roundRobin.get(tunnelId) ?? -1) + 1) % open.length;
    roundRobin.set(tunnelId, next);
    return open[next];
  }

  function openStream(conn: EdgeConnection, sink: StreamSink): number {
    let id = nextStreamId(conn.lastStream);
    while (conn.streams.has(id)) id = nextStreamId(id);
    conn.lastStream = id;
    conn.streams.set(id, sink);
    return id;
  }

  function send(conn: EdgeConnection, type: FrameType, stream: number, payload?: Buffer | string | object): void {
    if (conn.ws.readyState === conn.ws.OPEN) conn.ws.send(encodeFrame(type, stream, payload));
  }

  /** Sends `source` as DATA frames then END, waiting while the connection's send buffer is full. */
  async function pump(conn: EdgeConnection, stream: number, source: AsyncIterable<Buffer>): Promise<void> {
    for await (const chunk of source) {
      if (!conn.streams.has(stream)) return;
      send(conn, FrameType.DATA, stream, chunk);
      await writable(conn.ws);
    }
    if (conn.streams.has(stream)) send(conn, FrameType.END, stream);
  }

  type Resolved =
    | { kind: 'local'; conn: EdgeConnection; tunnel: TunnelRow; port: number }
    | { kind: 'relay'; edgeUrl: string }
    | { kind: 'refuse'; status: number; message: string };

  async function resolve(req: IncomingMessage): Promise<Resolved> {
    const parsed = parseTunnelHost(req.headers.host ?? '', domain);
    if (!parsed) return { kind: 'refuse', status: 404, message: 'Unknown tunnel host' };
    const tunnel = await tunnelByLabel(parsed.label);
    const port = tunnel?.ports.find((p) => p.subdomain === parsed.subdomain);
    if (!tunnel || !port) return { kind: 'refuse', status: 404, message: 'No such tunnel' };
    if (tunnel.expiresAt.getTime() <= Date.now())
      return { kind: 'refuse', status: 410, message: 'This tunnel has expired' };
    const agent = isAgent(req);
    if (!tunnel.public && !agent)
      return { kind: 'refuse', status: 403, message: 'This tunnel is private: only Proctor’s agents can reach it' };
    // The secret is shared by every worker: the project an agent works for decides which private tunnels it may use.
    if (!tunnel.public && req.headers[agentProjectHeader] !== tunnel.projectId) {
      return {
        kind: 'refuse',
        status: 403,
        message: 'This tunnel is private to another project: only its own project’s runs can reach it',
      };
    }
    const conn = pickConnection(tunnel.id);
    if (conn) return { kind: 'local', conn, tunnel, port: port.localPort };
    // Another API process may hold the connections: relay once, as an agent, to one of them.
    if (internalSecret && !req.headers[relayedHeader]) {
      const edges = (await liveEdgeUrls(db, tunnel.label)).filter((url) => url !== edgeUrl);
      if (edges.length > 0) return { kind: 'relay', edgeUrl: edges[Math.floor(Math.random() * edges.length)]! };
    }
    return { kind: 'refuse', status: 502, message: 'The tunnel client is not connected' };
  }

  const forwardedHeaders = (req: IncomingMessage, keepUpgrade: boolean): string[] => [
    ...endToEndHeaders(req.rawHeaders, {
      keepUpgrade,
      drop: [agentSecretHeader, agentProjectHeader, relayedHeader, 'x-forwarded-host', 'x-forwarded-proto'],
    }),
    'X-Forwarded-Host',
    req.headers.host ?? '',
    'X-Forwarded-Proto',
    'http',
  ];

  async function serveRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = await resolve(req);
    if (target.kind === 'refuse') {
      res.writeHead(target.status, { 'content-type': 'text/plain; charset=utf-8' }).end(`${target.message}\n`);
      return;
    }
    if (target.kind === 'relay') {
      forwardRequestToEdge(target.edgeUrl, req, res, { [agentSecretHeader]: internalSecret!, [relayedHeader]: '1' });
      return;
    }
    const { conn } = target;
    let release: (() => void) | undefined;
    const stream = openStream(conn, {
      onResponse(head) {
        try {
          res.writeHead(head.status, head.statusText, endToEndHeaders(head.headers));
        } catch {
          res.destroy();
        }
      },
      onData(data) {
        if (!res.write(data) && !release) {
          release = conn.pauser.hold();
          res.once('drain', () => {
            release?.();
            release = undefined;
          });
        }
      },
      onEnd() {
        conn.streams.delete(stream);
        res.end();
      },
      onAbort() {
        conn.streams.delete(stream);
        if (res.headersSent) res.destroy();
        else res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' }).end('The local app did not answer\n');
      },
    });
    res.on('close', () => {
      release?.();
      if (conn.streams.delete(stream)) send(conn, FrameType.ABORT, stream, 'closed by the caller');
    });
    send(conn, FrameType.REQUEST, stream, {
      port: target.port,
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: forwardedHeaders(req, false),
    });
    await pump(conn, stream, req);
  }

  async function serveUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', () => socket.destroy());
    const target = await resolve(req);
    if (target.kind === 'refuse') {
      socket.end(
        rawResponseHead(target.status, STATUS_CODES[target.status] ?? 'Error', [
          'Content-Length',
          '0',
          'Connection',
          'close',
        ]),
      );
      return;
    }
    if (target.kind === 'relay') {
      forwardUpgradeToEdge(target.edgeUrl, req, socket, head, {
        [agentSecretHeader]: internalSecret!,
        [relayedHeader]: '1',
      });
      return;
    }
    const { conn } = target;
    let release: (() => void) | undefined;
    const stream = openStream(conn, {
      onResponse(response) {
        const headers =
          response.status === 101
            ? endToEndHeaders(response.headers, { keepUpgrade: true })
            : [...endToEndHeaders(response.headers), 'Connection', 'close'];
        socket.write(
          rawResponseHead(response.status, response.statusText ?? STATUS_CODES[response.status] ?? '', headers),
        );
      },
      onData(data) {
        if (!socket.write(data) && !release) {
          release = conn.pauser.hold();
          socket.once('drain', () => {
            release?.();
            release = undefined;
          });
        }
      },
      onEnd() {
        conn.streams.delete(stream);
        socket.end();
      },
      onAbort() {
        conn.streams.delete(stream);
        socket.destroy();
      },
    });
    socket.on('close', () => {
      release?.();
      if (conn.streams.delete(stream)) send(conn, FrameType.ABORT, stream, 'closed by the caller');
    });
    send(conn, FrameType.UPGRADE, stream, {
      port: target.port,
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: forwardedHeaders(req, true),
    });
    if (head.length > 0) send(conn, FrameType.DATA, stream, head);
    await pump(conn, stream, socket);
  }

  /** False for bytes that are no frame at all; a frame for a stream already gone is a late one, dropped. */
  function onFrame(conn: EdgeConnection, data: Buffer): boolean {
    const frame = decodeFrame(data);
    if (!frame) return false;
    const sink = conn.streams.get(frame.stream);
    if (!sink) return true;
    switch (frame.type) {
      case FrameType.RESPONSE: {
        const head = parseHead<ResponseHead>(frame.payload, 'response');
        if (head) sink.onResponse(head);
        else sink.onAbort('malformed response head');
        break;
      }
      case FrameType.DATA:
        sink.onData(frame.payload);
        break;
      case FrameType.END:
        sink.onEnd();
        break;
      case FrameType.ABORT:
        sink.onAbort(frame.payload.toString('utf8'));
        break;
      default:
        break;
    }
    return true;
  }

  async function acceptClient(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', () => socket.destroy());
    const auth = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
    const tunnel = auth ? await findTunnelByTokenHash(db, hashToken(auth[1]!)) : undefined;
    if (!tunnel) {
      socket.end(rawResponseHead(401, 'Unauthorized', ['Content-Length', '0', 'Connection', 'close']));
      return;
    }
    if (tunnel.expiresAt.getTime() <= Date.now()) {
      socket.end(rawResponseHead(410, 'Gone', ['Content-Length', '0', 'Connection', 'close']));
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const conn: EdgeConnection = {
        id: newId(),
        tunnel,
        ws,
        streams: new Map(),
        lastStream: 0,
        pauser: createPauser(ws),
        lastSeen: Date.now(),
      };
      const registered = insertConnection(db, { id: conn.id, tunnelId: tunnel.id, edgeUrl }).then(
        () => {
          if (ws.readyState !== ws.OPEN) return;
          let set = byTunnel.get(tunnel.id);
          if (!set) byTunnel.set(tunnel.id, (set = new Set()));
          set.add(conn);
        },
        (err: unknown) => {
          // The tunnel was deleted between the token check and now.
          logger.warn('tunnel connection not registered', { runnerId: tunnel.runnerId, err });
          ws.close(CloseCode.deleted, 'tunnel deleted');
        },
      );
      ws.on('pong', () => (conn.lastSeen = Date.now()));
      ws.on('message', (data: Buffer, isBinary) => {
        conn.lastSeen = Date.now();
        // Every message of the protocol is one binary frame: anything else is a broken or hostile client, and
        // its connection is closed (1002, protocol error) rather than left holding a place in the rotation.
        if (!isBinary || !onFrame(conn, data)) ws.close(1002, 'malformed frame');
      });
      ws.on('error', () => ws.terminate());
      ws.on('close', () => {
        byTunnel.get(tunnel.id)?.delete(conn);
        if (byTunnel.get(tunnel.id)?.size === 0) byTunnel.delete(tunnel.id);
        for (const sink of conn.streams.values()) sink.onAbort('tunnel connection closed');
        conn.streams.clear();
        void registered
          .then(() => deleteConnection(db, conn.id))
          .catch((err: unknown) => logger.warn('tunnel connection row not removed', { err }));
      });
    });
  }

  return {
    handleRequest(req, res) {
      if (!parseTunnelHost(req.headers.host ?? '', domain)) return false;
      serveRequest(req, res).catch((err: unknown) => {
        logger.error('tunnel request failed', { err });
        if (!res.headersSent) res.writeHead(502).end();
        else res.destroy();
      });
      return true;
    },
    handleUpgrade(req, socket, head) {
      const path = (req.url ?? '').split('?')[0];
      if (path === tunnelConnectPath && !parseTunnelHost(req.headers.host ?? '', domain)) {
        acceptClient(req, socket, head).catch((err: unknown) => {
          logger.error('tunnel client connection failed', { err });
          socket.destroy();
        });
        return true;
      }
      if (!parseTunnelHost(req.headers.host ?? '', domain)) return false;
      serveUpgrade(req, socket, head).catch(() => socket.destroy());
      return true;
    },
    disconnect(runnerId) {
      tunnelCache.clear();
      for (const conn of all())
        if (conn.tunnel.runnerId === runnerId) conn.ws.close(CloseCode.deleted, 'tunnel deleted');
    },
    connectionCounts() {
      const counts = new Map<string, number>();
      for (const set of byTunnel.values())
        for (const conn of set) counts.set(conn.tunnel.runnerId, (counts.get(conn.tunnel.runnerId) ?? 0) + 1);
      return counts;
    },
    async close() {
      clearInterval(heartbeat);
      const conns = all();
      for (const conn of conns) conn.ws.terminate();
      await Promise.all(conns.map((c) => deleteConnection(db, c.id).catch(() => undefined)));
      wss.close();
    },
  };
}
