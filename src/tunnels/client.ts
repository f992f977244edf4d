// The tunnel client behind `proctor tunnel`: holds several WebSockets to the tunnel edge, reconnects with
// backoff, and serves each stream the edge opens by talking to the local port (see protocol.ts).
import { Agent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Duplex } from 'node:stream';
import WebSocket from 'ws';
import {
  CloseCode,
  createPauser,
  decodeFrame,
  encodeFrame,
  endToEndHeaders,
  FrameType,
  parseHead,
  tunnelConnectPath,
  writable,
  type RequestHead,
} from './protocol.js';

export interface TunnelClientOptions {
  apiUrl: string;
  tunnelToken: string;
  /** The local ports the tunnel may reach, with how to talk to each. Anything else the edge asks for is refused. */
  ports: Map<number, 'http' | 'https'>;
  /** Host the local ports listen on. */
  localHost?: string;
  connections?: number;
  /** First reconnect delay; doubles up to `maxBackoffMs`, with jitter. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  onEvent?: (event: TunnelClientEvent) => void;
}

export type TunnelClientEvent =
  | { type: 'connected'; index: number; open: number }
  | { type: 'disconnected'; index: number; open: number; retryInMs: number; reason: string }
  | { type: 'stopped'; reason: StopReason };

export type StopReason = 'stopped' | 'deleted' | 'expired' | 'unauthorized';

export interface TunnelClient {
  /** Resolves when the client has stopped for good, with why. */
  readonly done: Promise<StopReason>;
  open(): number;
  stop(): Promise<void>;
}

interface LocalStream {
  onData(data: Buffer): void;
  onEnd(): void;
  onAbort(): void;
}

export function startTunnelClient(options: TunnelClientOptions): TunnelClient {
  const count = options.connections ?? 4;
  const minBackoff = options.minBackoffMs ?? 500;
  const maxBackoff = options.maxBackoffMs ?? 10_000;
  const localHost = options.localHost ?? 'localhost';
  const url = new URL(tunnelConnectPath, options.apiUrl.replace(/^http/, 'ws'));
  const sockets: Array<WebSocket | undefined> = Array.from({ length: count }, () => undefined);
  const timers = new Set<NodeJS.Timeout>();
  let stopped: StopReason | undefined;
  let finish!: (reason: StopReason) => void;
  const done = new Promise<StopReason>((resolve) => (finish = resolve));

  // Keep-alive towards the local app; an upgraded socket leaves the pool, so upgrades get their own.
  const localAgents = {
    http: new Agent({ keepAlive: true }),
    https: new HttpsAgent({ keepAlive: true, rejectUnauthorized: false }),
  };

  const openCount = () => sockets.filter((ws) => ws?.readyState === WebSocket.OPEN).length;

  function stopWith(reason: StopReason): void {
    if (stopped) return;
    stopped = reason;
    for (const timer of timers) clearTimeout(timer);
    for (const ws of sockets) ws?.close(1000, 'client stopping');
    localAgents.http.destroy();
    localAgents.https.destroy();
    options.onEvent?.({ type: 'stopped', reason });
    finish(reason);
  }

  function connect(index: number, attempt: number): void {
    if (stopped) return;
    const ws = new WebSocket(url, {
      headers: { authorization: `Bearer ${options.tunnelToken}` },
      maxPayload: 16 * 1024 * 1024,
    });
    sockets[index] = ws;
    let opened = false;
    let refusal: StopReason | undefined;
    ws.on('unexpected-response', (_req, res) => {
      if (res.statusCode === 401) refusal = 'unauthorized';
      else if (res.statusCode === 410) refusal = 'expired';
      res.resume();
      ws.terminate();
    });
    ws.on('open', () => {
      opened = true;
      options.onEvent?.({ type: 'connected', index, open: openCount() });
      serveConnection(ws);
    });
    ws.on('error', () => undefined);
    ws.on('close', (code, reason) => {
      if (sockets[index] === ws) sockets[index] = undefined;
      if (refusal) return stopWith(refusal);
      if (code === CloseCode.deleted) return stopWith('deleted');
      if (code === CloseCode.expired) return stopWith('expired');
      if (stopped) return;
      const next = opened ? 0 : attempt + 1;
      const delay = Math.min(maxBackoff, minBackoff * 2 ** next) * (0.75 + Math.random() * 0.5);
      options.onEvent?.({
        type: 'disconnected',
        index,
        open: openCount(),
        retryInMs: Math.round(delay),
        reason: reason.toString() || `code ${code}`,
      });
      const timer = setTimeout(() => {
        timers.delete(timer);
        connect(index, next);
      }, delay);
      timers.add(timer);
    });
  }

  function serveConnection(ws: WebSocket): void {
    const streams = new Map<number, LocalStream>();
    const pauser = createPauser(ws);
    const send = (type: FrameType, stream: number, payload?: Buffer | string | object) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(encodeFrame(type, stream, payload));
    };
    const abort = (stream: number, reason: string) => {
      if (streams.delete(stream)) send(FrameType.ABORT, stream, reason);
    };

    async function pump(stream: number, source: AsyncIterable<Buffer>): Promise<void> {
      for await (const chunk of source) {
        if (!streams.has(stream)) return;
        send(FrameType.DATA, stream, chunk);
        await writable(ws);
      }
      if (streams.delete(stream)) send(FrameType.END, stream);
    }

    /** Feeds DATA/END of the edge into a local writable, pausing the WebSocket while it is full. */
    function sinkInto(target: ClientRequest | Duplex): LocalStream {
      let release: (() => void) | undefined;
      // A destination that goes away while full never drains: its hold must not pause the connection for good.
      target.once('close', () => {
        release?.();
        release = undefined;
      });
      return {
        onData(data) {
          if (!target.write(data) && !release) {
            release = pauser.hold();
            target.once('drain', () => {
              release?.();
              release = undefined;
            });
          }
        },
        onEnd: () => target.end(),
        onAbort() {
          release?.();
          target.destroy();
        },
      };
    }

    function open(stream: number, head: RequestHead, upgrade: boolean): void {
      const protocol = options.ports.get(head.port);
      if (!protocol) return void send(FrameType.ABORT, stream, `port ${head.port} is not exposed by this client`);
      // The local app sees itself addressed as on the developer's machine; X-Forwarded-Host names the tunnel.
      const headers: string[] = [];
      for (let i = 0; i < head.headers.length; i += 2) {
        if (head.headers[i]!.toLowerCase() !== 'host') headers.push(head.headers[i]!, head.headers[i + 1]!);
      }
      headers.push('Host', `localhost:${head.port}`);
      const local = (protocol === 'https' ? httpsRequest : httpRequest)({
        host: localHost,
        port: head.port,
        method: head.method,
        path: head.path,
        headers,
        // A dev server's certificate is usually self-signed; the tunnel is what the user trusts here.
        rejectUnauthorized: false,
        agent: upgrade ? false : localAgents[protocol],
      });
      const sink = sinkInto(local);
      streams.set(stream, sink);
      local.on('error', () => abort(stream, 'the local app is unreachable'));
      local.on('response', (res: IncomingMessage) => {
        send(FrameType.RESPONSE, stream, {
          status: res.statusCode ?? 502,
          statusText: res.statusMessage,
          headers: endToEndHeaders(res.rawHeaders),
        });
        res.on('error', () => abort(stream, 'the local response failed'));
        pump(stream, res).catch(() => abort(stream, 'the local response failed'));
      });
      if (upgrade) {
        local.on('upgrade', (res: IncomingMessage, socket: Duplex, upgradeHead: Buffer) => {
          streams.set(stream, sinkInto(socket));
          socket.on('error', () => abort(stream, 'the local socket failed'));
          send(FrameType.RESPONSE, stream, {
            status: 101,
            statusText: res.statusMessage,
            headers: endToEndHeaders(res.rawHeaders, { keepUpgrade: true }),
          });
          if (upgradeHead.length > 0) send(FrameType.DATA, stream, upgradeHead);
          pump(stream, socket).catch(() => abort(stream, 'the local socket failed'));
        });
        // Bytes the caller sent before the switch wait for the upgraded socket.
        const early: Buffer[] = [];
        streams.set(stream, { onData: (d) => early.push(d), onEnd: () => undefined, onAbort: () => local.destroy() });
        local.once('upgrade', (_res: IncomingMessage, socket: Duplex) => early.forEach((d) => socket.write(d)));
        local.end();
      }
    }

    ws.on('message', (data: Buffer, isBinary) => {
      if (!isBinary) return;
      const frame = decodeFrame(data);
      if (!frame) return;
      if (frame.type === FrameType.REQUEST || frame.type === FrameType.UPGRADE) {
        const head = parseHead<RequestHead>(frame.payload, 'request');
        if (head) open(frame.stream, head, frame.type === FrameType.UPGRADE);
        else send(FrameType.ABORT, frame.stream, 'malformed request head');
        return;
      }
      const stream = streams.get(frame.stream);
      if (!stream) return;
      if (frame.type === FrameType.DATA) stream.onData(frame.payload);
      else if (frame.type === FrameType.END) stream.onEnd();
      else if (frame.type === FrameType.ABORT) {
        streams.delete(frame.stream);
        stream.onAbort();
      }
    });
    ws.on('close', () => {
      for (const stream of streams.values()) stream.onAbort();
      streams.clear();
    });
  }

  for (let i = 0; i < count; i += 1) connect(i, 0);

  return {
    done,
    open: openCount,
    async stop() {
      stopWith('stopped');
      await Promise.all(
        sockets.map((ws) =>
          ws && ws.readyState !== WebSocket.CLOSED ? new Promise((resolve) => ws.once('close', resolve)) : undefined,
        ),
      );
    },
  };
}
