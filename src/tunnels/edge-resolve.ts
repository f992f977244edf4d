// Which connection serves a request for a tunnel hostname, shared by the request and upgrade parts: the
// tunnel's row (cached briefly), whether the caller may reach it (public, or Proctor's agents of its own
// project), and a connection this edge holds or another edge to relay to.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { findTunnelByLabel, liveEdgeUrls, type TunnelRow } from '../db/queries/tunnels.js';
import { parseTunnelHost } from '../domain/tunnels.js';
import { pickConnection, type EdgeConnection, type EdgeContext } from './edge-connections.js';
import { agentProjectHeader, agentSecretHeader, endToEndHeaders, relayedHeader } from './protocol.js';

const tunnelCacheMs = 2_000;

export type Resolved =
  | { kind: 'local'; conn: EdgeConnection; tunnel: TunnelRow; port: number }
  | { kind: 'relay'; edgeUrl: string }
  | { kind: 'refuse'; status: number; message: string };

function isAgent(ctx: EdgeContext, req: IncomingMessage): boolean {
  const given = req.headers[agentSecretHeader];
  if (!ctx.internalSecret || typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(ctx.internalSecret);
  return a.length === b.length && timingSafeEqual(a, b);
}

async function tunnelByLabel(ctx: EdgeContext, label: string): Promise<TunnelRow | undefined> {
  const hit = ctx.tunnelCache.get(label);
  if (hit && Date.now() - hit.at < tunnelCacheMs) return hit.row;
  const row = await findTunnelByLabel(ctx.db, label);
  if (ctx.tunnelCache.size > 1000) ctx.tunnelCache.clear();
  ctx.tunnelCache.set(label, { at: Date.now(), row });
  return row;
}

export async function resolve(ctx: EdgeContext, req: IncomingMessage): Promise<Resolved> {
  const parsed = parseTunnelHost(req.headers.host ?? '', ctx.domain);
  if (!parsed) return { kind: 'refuse', status: 404, message: 'Unknown tunnel host' };
  const tunnel = await tunnelByLabel(ctx, parsed.label);
  const port = tunnel?.ports.find((p) => p.subdomain === parsed.subdomain);
  if (!tunnel || !port) return { kind: 'refuse', status: 404, message: 'No such tunnel' };
  if (tunnel.expiresAt.getTime() <= Date.now())
    return { kind: 'refuse', status: 410, message: 'This tunnel has expired' };
  const agent = isAgent(ctx, req);
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
  const conn = pickConnection(ctx, tunnel.id);
  if (conn) return { kind: 'local', conn, tunnel, port: port.localPort };
  // Another API process may hold the connections: relay once, as an agent, to one of them.
  if (ctx.internalSecret && !req.headers[relayedHeader]) {
    const edges = (await liveEdgeUrls(ctx.db, tunnel.label)).filter((url) => url !== ctx.edgeUrl);
    if (edges.length > 0) return { kind: 'relay', edgeUrl: edges[Math.floor(Math.random() * edges.length)]! };
  }
  return { kind: 'refuse', status: 502, message: 'The tunnel client is not connected' };
}

/** What a relay to another edge adds: the internal secret (it asks as an agent) and the mark that stops a second relay. */
export const relayHeaders = (ctx: EdgeContext): Record<string, string> => ({
  [agentSecretHeader]: ctx.internalSecret!,
  [relayedHeader]: '1',
});

/** The caller's headers as the local app gets them: Proctor's own dropped, the tunnel hostname as X-Forwarded-Host. */
export const forwardedHeaders = (req: IncomingMessage, keepUpgrade: boolean): string[] => [
  ...endToEndHeaders(req.rawHeaders, {
    keepUpgrade,
    drop: [agentSecretHeader, agentProjectHeader, relayedHeader, 'x-forwarded-host', 'x-forwarded-proto'],
  }),
  'X-Forwarded-Host',
  req.headers.host ?? '',
  'X-Forwarded-Proto',
  'http',
];
