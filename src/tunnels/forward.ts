// Plain-HTTP hops towards a tunnel edge: from a worker's egress proxy, or from an edge that does not hold
// the tunnel's connections to one that does. The Host header keeps the tunnel hostname; the edge routes by it.
import { request as httpRequest, Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import type { Duplex } from 'node:stream';
import { endToEndHeaders, rawResponseHead, relayResponse } from './protocol.js';

const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 256 });

interface Hop {
  edgeUrl: string;
  /** The tunnel hostname (with port, as the caller sent it). */
  host: string;
  /** Path and query of the request. */
  path: string;
  extraHeaders: Record<string, string>;
}

function hopOf(edgeUrl: string, req: IncomingMessage, extraHeaders: Record<string, string>): Hop {
  // A proxy request carries an absolute URL, a relayed one a path.
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'invalid'}`);
  return { edgeUrl, host: url.host, path: `${url.pathname}${url.search}`, extraHeaders };
}

function open(hop: Hop, req: IncomingMessage, keepUpgrade: boolean) {
  const base = new URL(hop.edgeUrl);
  const headers = [
    ...endToEndHeaders(req.rawHeaders, { keepUpgrade, drop: ['host', ...Object.keys(hop.extraHeaders)] }),
    'Host',
    hop.host,
  ];
  for (const [name, value] of Object.entries(hop.extraHeaders)) headers.push(name, value);
  const secure = base.protocol === 'https:';
  return (secure ? httpsRequest : httpRequest)({
    agent: keepUpgrade ? false : secure ? httpsAgent : agent,
    protocol: base.protocol,
    hostname: base.hostname.replace(/^\[|\]$/g, ''),
    port: base.port || (secure ? 443 : 80),
    method: req.method,
    path: `${base.pathname.replace(/\/$/, '')}${hop.path}`,
    headers,
  });
}

export function forwardRequestToEdge(
  edgeUrl: string,
  req: IncomingMessage,
  res: ServerResponse,
  extraHeaders: Record<string, string>,
): void {
  const upstream = open(hopOf(edgeUrl, req, extraHeaders), req, false);
  upstream.on('response', (response) => relayResponse(response, res));
  upstream.on('error', () =>
    res.headersSent
      ? res.destroy()
      : res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' }).end('The tunnel edge is unreachable\n'),
  );
  req.on('error', () => upstream.destroy());
  res.on('close', () => upstream.destroy());
  req.pipe(upstream);
}

export function forwardUpgradeToEdge(
  edgeUrl: string,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  extraHeaders: Record<string, string>,
): void {
  const upstream = open(hopOf(edgeUrl, req, extraHeaders), req, true);
  upstream.on('upgrade', (response, upstreamSocket, upstreamHead) => {
    socket.write(
      rawResponseHead(
        response.statusCode ?? 101,
        response.statusMessage ?? 'Switching Protocols',
        endToEndHeaders(response.rawHeaders, { keepUpgrade: true }),
      ),
    );
    if (upstreamHead.length > 0) socket.write(upstreamHead);
    if (head.length > 0) upstreamSocket.write(head);
    upstreamSocket.pipe(socket);
    socket.pipe(upstreamSocket);
    upstreamSocket.on('error', () => socket.destroy());
    upstreamSocket.on('close', () => socket.destroy());
    socket.on('close', () => upstreamSocket.destroy());
  });
  upstream.on('response', (response) => {
    // The upgrade was refused: pass the answer on and close.
    socket.write(
      rawResponseHead(response.statusCode ?? 502, response.statusMessage ?? '', [
        ...endToEndHeaders(response.rawHeaders),
        'Connection',
        'close',
      ]),
    );
    response.pipe(socket);
  });
  upstream.on('error', () => socket.destroy());
  socket.on('error', () => upstream.destroy());
  upstream.end();
}
