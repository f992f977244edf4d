// Streams on a tunnel connection: each request or upgrade the edge sends down a client's WebSocket is one
// numbered stream of frames. Shared by the request and upgrade parts, which differ only in where the answer
// is written (an HTTP response or a raw socket).
import type { Writable } from 'node:stream';
import type { EdgeConnection, StreamSink } from './edge-connections.js';
import { encodeFrame, FrameType, nextStreamId, writable, type ResponseHead } from './protocol.js';

function openStream(conn: EdgeConnection, sink: StreamSink): number {
  let id = nextStreamId(conn.lastStream);
  while (conn.streams.has(id)) id = nextStreamId(id);
  conn.lastStream = id;
  conn.streams.set(id, sink);
  return id;
}

export function send(conn: EdgeConnection, type: FrameType, stream: number, payload?: Buffer | string | object): void {
  if (conn.ws.readyState === conn.ws.OPEN) conn.ws.send(encodeFrame(type, stream, payload));
}

/** Sends `source` as DATA frames then END, waiting while the connection's send buffer is full. */
export async function pump(conn: EdgeConnection, stream: number, source: AsyncIterable<Buffer>): Promise<void> {
  for await (const chunk of source) {
    if (!conn.streams.has(stream)) return;
    send(conn, FrameType.DATA, stream, chunk);
    await writable(conn.ws);
  }
  if (conn.streams.has(stream)) send(conn, FrameType.END, stream);
}

/**
 * Opens a stream whose answer is written to `out`. While `out` is full the whole connection stops reading
 * (its other streams wait too: a WebSocket cannot pause one stream), until `out` drains. The caller going
 * away first aborts the stream at the client, so the local app stops sending. `onResponse` writes the head,
 * `onAbort` ends `out` when the client gives up; the stream is already forgotten when `onAbort` runs.
 */
export function openRelayStream(
  conn: EdgeConnection,
  out: Writable,
  answer: { onResponse(head: ResponseHead): void; onAbort(): void },
): number {
  let release: (() => void) | undefined;
  const stream = openStream(conn, {
    onResponse: answer.onResponse,
    onData(data) {
      if (!out.write(data) && !release) {
        release = conn.pauser.hold();
        out.once('drain', () => {
          release?.();
          release = undefined;
        });
      }
    },
    onEnd() {
      conn.streams.delete(stream);
      out.end();
    },
    onAbort() {
      conn.streams.delete(stream);
      answer.onAbort();
    },
  });
  out.on('close', () => {
    release?.();
    if (conn.streams.delete(stream)) send(conn, FrameType.ABORT, stream, 'closed by the caller');
  });
  return stream;
}
