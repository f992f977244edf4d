// Remote tunnels as business operations: the routes (and `proctor tunnel`, through the API) go through these.
import { randomBytes } from 'node:crypto';
import type { TunnelPort } from '../db/schema.js';
import {
  deleteTunnel,
  findTunnel,
  insertTunnel,
  liveConnectionCount,
  liveConnectionCounts,
  listTunnels,
  type TunnelRow,
} from '../db/queries/tunnels.js';
import { tunnelLifetimeMs, tunnelStatus, tunnelUrl, type TunnelStatus } from '../domain/tunnels.js';
import { hashToken, newId } from '../ids.js';
import { InvalidError, NotFoundError } from '../domain/errors.js';
import type { ServiceContext } from './context.js';

export interface TunnelHostname {
  localPort: number;
  url: string;
}

export interface CreateTunnelInput {
  ports: Array<{ localPort: number; protocol?: 'http' | 'https'; subdomain?: string }>;
  public?: boolean;
}

export interface CreatedTunnel {
  runnerId: string;
  hostnames: TunnelHostname[];
  tunnelToken: string;
  expiresAt: string;
}

export interface TunnelView {
  runnerId: string;
  hostnames: TunnelHostname[];
  public: boolean;
  createdAt: string;
  expiresAt: string;
  isExpired: boolean;
  status: TunnelStatus;
  connections: number;
}

const labelAlphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';

// Host names are case-insensitive, so the part of the runner id they carry is lower-case only.
function newLabel(): string {
  return [...randomBytes(12)].map((b) => labelAlphabet[b % labelAlphabet.length]).join('');
}

/** A tunnel client's secret (`ptt_…`); only its hash is stored. */
function newTunnelToken(): string {
  return `ptt_${randomBytes(30).toString('base64url')}`;
}

const hostnamesOf = (tunnel: Pick<TunnelRow, 'ports' | 'label'>, domain: string): TunnelHostname[] =>
  tunnel.ports.map((p) => ({ localPort: p.localPort, url: tunnelUrl(p.subdomain, tunnel.label, domain) }));

export async function createTunnel(
  { db }: ServiceContext,
  domain: string,
  projectId: string,
  input: CreateTunnelInput,
): Promise<CreatedTunnel> {
  const ports: TunnelPort[] = input.ports.map((p) => ({
    localPort: p.localPort,
    protocol: p.protocol ?? 'http',
    subdomain: p.subdomain ?? `p${p.localPort}`,
  }));
  const seenPorts = new Set<number>();
  const seenSubdomains = new Set<string>();
  for (const p of ports) {
    if (seenPorts.has(p.localPort)) throw new InvalidError(`ports: localPort ${p.localPort} is listed twice`);
    if (seenSubdomains.has(p.subdomain)) throw new InvalidError(`ports: subdomain ${p.subdomain} is used twice`);
    seenPorts.add(p.localPort);
    seenSubdomains.add(p.subdomain);
  }
  const label = newLabel();
  const tunnelToken = newTunnelToken();
  const row = await insertTunnel(db, {
    id: newId(),
    runnerId: `tunnel_${label}`,
    label,
    projectId,
    ports,
    public: input.public ?? false,
    tokenHash: hashToken(tunnelToken),
    expiresAt: new Date(Date.now() + tunnelLifetimeMs),
  });
  return {
    runnerId: row.runnerId,
    hostnames: hostnamesOf(row, domain),
    tunnelToken,
    expiresAt: row.expiresAt.toISOString(),
  };
}

export async function listTunnelViews(
  { db }: ServiceContext,
  domain: string,
  projectId: string,
): Promise<TunnelView[]> {
  const rows = await listTunnels(db, projectId);
  const counts = await liveConnectionCounts(
    db,
    rows.map((r) => r.id),
  );
  const now = Date.now();
  return rows.map((r) => {
    const connections = counts.get(r.id) ?? 0;
    return {
      runnerId: r.runnerId,
      hostnames: hostnamesOf(r, domain),
      public: r.public,
      createdAt: r.createdAt.toISOString(),
      expiresAt: r.expiresAt.toISOString(),
      isExpired: r.expiresAt.getTime() <= now,
      status: tunnelStatus(connections),
      connections,
    };
  });
}

/** The spec's status object; NotFoundError for a tunnel the project does not have. */
export async function getTunnelStatus(
  { db }: ServiceContext,
  domain: string,
  projectId: string,
  runnerId: string,
): Promise<{ status: TunnelStatus; connections: number; hostnames: TunnelHostname[] }> {
  const tunnel = await findTunnel(db, projectId, runnerId);
  if (!tunnel) throw new NotFoundError('Remote tunnel');
  const connections = await liveConnectionCount(db, tunnel.id);
  return { status: tunnelStatus(connections), connections, hostnames: hostnamesOf(tunnel, domain) };
}

/** Deletes the tunnel; edges close its connections (the one that served this at once, others on their next heartbeat). */
export async function removeTunnel({ db }: ServiceContext, projectId: string, runnerId: string): Promise<void> {
  if (!(await deleteTunnel(db, projectId, runnerId))) throw new NotFoundError('Remote tunnel');
}
