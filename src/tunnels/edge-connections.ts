// The tunnel edge's connection part: the WebSockets tunnel clients hold here. A client is let in by its
// tunnel's token, its connection is a Postgres row this edge heartbeats (so every process can count a
// tunnel's connections and find an edge that holds one), and the frames it sends back are handed to the
// stream they belong to. The request and upgrade parts (edge-requests.ts, edge-upgrade.ts) only open streams
// on a connection picked here.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import type { DB } from '../db/database.js';
import {
  deleteConnection,
  findTunnelByTokenHash,
  heartbeatConnections,
  insertConnection,
  type TunnelRow,
} from '../db/queries/tunnels.js';
import { hashToken, newId } from '../ids.js';
import type { Logger } from '../logger.js';
import {
  CloseCode,
  createPauser,
  decodeFrame,
  FrameType,
  parseHead,
  rawResponseHead,
  type ResponseHead,
} from './protocol.js';

/** Where one stream's answer goes: a caller's HTTP response or its upgraded socket. */
export interface StreamSink {
  onResponse(head: ResponseHead): void;
  onData(data: Buffer): void;
  onEnd(): void;
  onAbort(reason: string): void;
}

export interface EdgeConnection {
  id: string;
  tunnel: TunnelRow;
  ws: WebSocket;
  streams: Map<number, StreamSink>;
  lastStream: number;
  pauser: ReturnType<typeof createPauser>;
  lastSeen: number;
}

/**
 * What the edge's parts share, made once by createTunnelEdge and passed to each explicitly (rather than closed
 * over), so each part can be read on its own: the edge's settings and the connections it holds.
 */
export interface EdgeContext {
  db: DB;
  logger: Logger;
  /** The tunnel domain (`tunnel.example.com`, a port allowed). */
  domain: string;
  /** How workers and other edges reach this process. */
  edgeUrl: string;
  internalSecret?: string;
  wss: WebSocketServer;
  /** Registered connections per tunnel id: a connection joins once its row is written and leaves when it closes. */
  byTunnel: Map<string, Set<EdgeConnection>>;
  /** The last connection used per tunnel id, so requests take a tunnel's connections in turn. */
  roundRobin: Map<string, number>;
  /** Tunnel rows by label, kept briefly so a burst of requests does not read the row each time. */
  tunnelCache: Map<string, { at: number; row: TunnelRow | undefined }>;
}

const silenceLimitMs = 30_000;

export const allConnections = (ctx: EdgeContext): EdgeConnection[] =>
  [...ctx.byTunnel.values()].flatMap((set) => [...set]);

/** One heartbeat: pings every client, ends the silent ones, and closes those whose tunnel was deleted or expired. */
export function heartbeatTick(ctx: EdgeContext): void {
  for (const conn of allConnections(ctx)) {
    // A client silent for this long is gone even if TCP has not noticed. A connection paused because a
    // destination is full reads nothing, pongs included, and is not judged.
    if (!conn.ws.isPaused && Date.now() - conn.lastSeen > silenceLimitMs) {
      conn.ws.terminate();
      continue;
    }
    conn.ws.ping();
  }
  const conns = allConnections(ctx);
  heartbeatConnections(
    ctx.db,
    conns.map((c) => c.id),
  ).then(
    ({ deleted, expired }) => {
      for (const conn of conns) {
        if (deleted.includes(conn.id)) conn.ws.close(CloseCode.deleted, 'tunnel deleted');
        else if (expired.includes(conn.id)) conn.ws.close(CloseCode.expired, 'tunnel expired');
      }
    },
    (err: unknown) => ctx.logger.warn('tunnel heartbeat failed', { err }),
  );
}

/** An open connection of the tunnel, taking them in turn; undefined when this edge holds none. */
export function pickConnection(ctx: EdgeContext, tunnelId: string): EdgeConnection | undefined {
  const open = [...(ctx.byTunnel.get(tunnelId) ?? [])].filter((c) => c.ws.readyState === c.ws.OPEN);
  if (open.length === 0) return undefined;
  const next = ((ctx.roundRobin.get(tunnelId) ?? -1) + 1) % open.length;
  ctx.roundRobin.set(tunnelId, next);
  return open[next];
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

/** Takes a tunnel client's WebSocket: checks its token, registers the connection and wires its frames. */
export async function acceptClient(
  ctx: EdgeContext,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): Promise<void> {
  const { db, logger, edgeUrl, byTunnel } = ctx;
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
  ctx.wss.handleUpgrade(req, socket, head, (ws) => {
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
