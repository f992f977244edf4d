// The tunnel edge's request part: an HTTP request for a tunnel hostname goes down one stream of a client's
// connection, or to the edge that holds one, or is refused with a status a person can read.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EdgeContext } from './edge-connections.js';
import { forwardedHeaders, relayHeaders, resolve } from './edge-resolve.js';
import { openRelayStream, pump, send } from './edge-streams.js';
import { forwardRequestToEdge } from './forward.js';
import { endToEndHeaders, FrameType } from './protocol.js';

export async function serveRequest(ctx: EdgeContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const target = await resolve(ctx, req);
  if (target.kind === 'refuse') {
    res.writeHead(target.status, { 'content-type': 'text/plain; charset=utf-8' }).end(`${target.message}\n`);
    return;
  }
  if (target.kind === 'relay') {
    forwardRequestToEdge(target.edgeUrl, req, res, relayHeaders(ctx));
    return;
  }
  const { conn } = target;
  const stream = openRelayStream(conn, res, {
    onResponse(head) {
      try {
        res.writeHead(head.status, head.statusText, endToEndHeaders(head.headers));
      } catch {
        res.destroy();
      }
    },
    onAbort() {
      if (res.headersSent) res.destroy();
      else res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' }).end('The local app did not answer\n');
    },
  });
  send(conn, FrameType.REQUEST, stream, {
    port: target.port,
    method: req.method ?? 'GET',
    path: req.url ?? '/',
    headers: forwardedHeaders(req, false),
  });
  await pump(conn, stream, req);
}
