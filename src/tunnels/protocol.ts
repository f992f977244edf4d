// The wire protocol between the tunnel client (`proctor tunnel`) and the tunnel edge (in the API process).
//
// One WebSocket carries many streams. Every WebSocket message is binary and is one frame:
//
//   byte 0      frame type (below)
//   bytes 1-4   stream id, unsigned 32-bit big-endian; the edge picks ids, one per request on a connection
//   bytes 5-    payload
//
// A stream is one HTTP exchange, opened by the edge:
//   edge   -> client  REQUEST  {port, method, path, headers}   an HTTP request for the local port
//   edge   -> client  UPGRADE  {port, method, path, headers}   the same, asking to switch protocols (WebSocket)
//   client -> edge    RESPONSE {status, statusText, headers}   the response head (101 for an accepted upgrade)
//   both ways         DATA     raw bytes                       body bytes; after a 101, the raw upgraded stream
//   both ways         END      (empty)                         the sender sends no more DATA on this stream
//   both ways         ABORT    utf-8 reason                    the stream failed; both sides drop it
// Headers travel as a flat [name, value, name, value, …] list, hop-by-hop ones removed (kept for UPGRADE).
//
// Flow control is per connection: a sender waits while the WebSocket's send buffer is above
// `highWaterMark`, and a receiver pauses reading the WebSocket while a stream's destination is full. One slow
// stream can hold up the others on its connection; the client holds several connections to spread that.
//
// Close codes the edge uses to tell the client to stop for good: 4004 tunnel deleted, 4010 tunnel expired.
import type { WebSocket } from 'ws';
import type { IncomingMessage, ServerResponse } from 'node:http';

export const FrameType = { REQUEST: 1, UPGRADE: 2, RESPONSE: 3, DATA: 4, END: 5, ABORT: 6 } as const;
export type FrameType = (typeof FrameType)[keyof typeof FrameType];

export interface RequestHead {
  port: number;
  method: string;
  path: string;
  headers: string[];
}

export interface ResponseHead {
  status: number;
  statusText?: string;
  headers: string[];
}

export interface Frame {
  type: FrameType;
  stream: number;
  payload: Buffer;
}

/** Where the tunnel client opens its WebSockets, on the API's own address. */
export const tunnelConnectPath = '/tunnel/connect';

export const CloseCode = { deleted: 4004, expired: 4010 } as const;

/** Header an agent's request carries to the edge (from a worker's egress proxy), with the internal secret. */
export const agentSecretHeader = 'x-proctor-tunnel-secret';
/**
 * The project whose job (run, burn-in, chat) sent an agent's request: a private tunnel serves only its own
 * project's. Set by the worker's router, never by the page (the router overwrites it), and trusted only with the secret.
 */
export const agentProjectHeader = 'x-proctor-tunnel-project';
/** Marks a request one edge relayed to another, so it is never relayed twice. */
export const relayedHeader = 'x-proctor-tunnel-relayed';

export const highWaterMark = 1024 * 1024;
const maxStreamId = 0xffffffff;

export function encodeFrame(type: FrameType, stream: number, payload?: Buffer | string | object): Buffer {
  const body =
    payload === undefined
      ? Buffer.alloc(0)
      : Buffer.isBuffer(payload)
        ? payload
        : Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload));
  const header = Buffer.allocUnsafe(5);
  header.writeUInt8(type, 0);
  header.writeUInt32BE(stream, 1);
  return Buffer.concat([header, body]);
}

export function decodeFrame(data: Buffer): Frame | undefined {
  if (data.length < 5) return undefined;
  const type = data.readUInt8(0);
  if (type < FrameType.REQUEST || type > FrameType.ABORT) return undefined;
  return { type: type as FrameType, stream: data.readUInt32BE(1), payload: data.subarray(5) };
}

/** The JSON payload of a REQUEST/UPGRADE/RESPONSE frame, or undefined when it is not what it should be. */
export function parseHead<T extends RequestHead | ResponseHead>(
  payload: Buffer,
  kind: 'request' | 'response',
): T | undefined {
  try {
    const value = JSON.parse(payload.toString('utf8')) as Record<string, unknown>;
    if (
      !Array.isArray(value.headers) ||
      !value.headers.every((h) => typeof h === 'string') ||
      value.headers.length % 2 !== 0
    )
      return undefined;
    if (
      kind === 'request' &&
      (typeof value.port !== 'number' || typeof value.method !== 'string' || typeof value.path !== 'string')
    )
      return undefined;
    if (kind === 'response' && typeof value.status !== 'number') return undefined;
    return value as unknown as T;
  } catch {
    return undefined;
  }
}

export const nextStreamId = (id: number): number => (id >= maxStreamId ? 1 : id + 1);

/** Resolves once the socket's send buffer is below the high-water mark (or the socket is gone). */
export async function writable(ws: WebSocket): Promise<void> {
  while (ws.bufferedAmount > highWaterMark && ws.readyState === ws.OPEN) {
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/**
 * Pauses the WebSocket while any stream's destination is full. Each `hold()` returns its release; the
 * socket resumes when every hold is released.
 */
export function createPauser(ws: WebSocket): { hold(): () => void } {
  let holds = 0;
  return {
    hold() {
      holds += 1;
      if (holds === 1) ws.pause();
      let released = false;
      return () => {
        if (released) return;
        released = true;
        holds -= 1;
        if (holds === 0) ws.resume();
      };
    },
  };
}

// Headers that describe one connection, not the message.
const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** The end-to-end headers of a raw header list; `keepUpgrade` keeps `connection`/`upgrade` for a protocol switch. */
export function endToEndHeaders(raw: string[], options: { keepUpgrade?: boolean; drop?: string[] } = {}): string[] {
  const drop = new Set((options.drop ?? []).map((d) => d.toLowerCase()));
  const named = new Set<string>();
  if (!options.keepUpgrade) {
    for (let i = 0; i < raw.length; i += 2) {
      if (raw[i]!.toLowerCase() === 'connection')
        raw[i + 1]!.split(',').forEach((name) => named.add(name.trim().toLowerCase()));
    }
  }
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (drop.has(name)) continue;
    if (
      options.keepUpgrade
        ? name === 'connection' || name === 'upgrade' || !hopByHop.has(name)
        : !hopByHop.has(name) && !named.has(name)
    )
      kept.push(raw[i]!, raw[i + 1]!);
  }
  return kept;
}

/**
 * Answers `res` with an upstream response: its status and end-to-end headers, sent at once, then its body as it
 * comes. The head goes before any body because a page may wait on it alone: an EventSource opens on the head of a
 * stream whose first event may come much later. A head Node refuses to write, or a body that fails, ends the
 * connection: the client sees the upstream fail, as it would without a hop between.
 */
export function relayResponse(response: IncomingMessage, res: ServerResponse): void {
  response.on('error', () => res.destroy());
  try {
    res.writeHead(response.statusCode ?? 502, response.statusMessage, endToEndHeaders(response.rawHeaders));
  } catch {
    res.destroy();
    return;
  }
  res.flushHeaders();
  response.pipe(res);
}

/** A raw HTTP/1.1 response head, for answering on a socket that a request was upgraded from. */
export function rawResponseHead(status: number, statusText: string, headers: string[]): string {
  const lines = [`HTTP/1.1 ${status} ${statusText}`];
  for (let i = 0; i < headers.length; i += 2) lines.push(`${headers[i]}: ${headers[i + 1]}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}
