// The tunnel edge's upgrade part: an upgrade (a WebSocket, say) for a tunnel hostname. Like a request, but
// the answer is written as raw bytes to the caller's socket, and after a 101 both directions stay open.
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { EdgeContext } from './edge-connections.js';
import { forwardedHeaders, relayHeaders, resolve } from './edge-resolve.js';
import { openRelayStream, pump, send } from './edge-streams.js';
import { forwardUpgradeToEdge } from './forward.js';
import { endToEndHeaders, FrameType, rawResponseHead } from './protocol.js';

export async function serveUpgrade(
  ctx: EdgeContext,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): Promise<void> {
  socket.on('error', () => socket.destroy());
  const target = await resolve(ctx, req);
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
    forwardUpgradeToEdge(target.edgeUrl, req, socket, head, relayHeaders(ctx));
    return;
  }
  const { conn } = target;
  const stream = openRelayStream(conn, socket, {
    onResponse(response) {
      // Anything but a 101 ends the socket after its body: the caller must not reuse it.
      const headers =
        response.status === 101
          ? endToEndHeaders(response.headers, { keepUpgrade: true })
          : [...endToEndHeaders(response.headers), 'Connection', 'close'];
      socket.write(
        rawResponseHead(response.status, response.statusText ?? STATUS_CODES[response.status] ?? '', headers),
      );
    },
    onAbort() {
      socket.destroy();
    },
  });
  send(conn, FrameType.UPGRADE, stream, {
    port: target.port,
    method: req.method ?? 'GET',
    path: req.url ?? '/',
    headers: forwardedHeaders(req, true),
  });
  // Bytes the caller sent after its upgrade head (already read by Node) go first.
  if (head.length > 0) send(conn, FrameType.DATA, stream, head);
  await pump(conn, stream, socket);
}
