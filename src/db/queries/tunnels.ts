import { sql, type Selectable } from 'kysely';
import type { DB } from '../database.js';
import type { RemoteTunnelsTable, TunnelPort } from '../schema.js';
import { connectionStaleMs } from '../../domain/tunnels.js';

export interface TunnelRow {
  id: string;
  runnerId: string;
  label: string;
  projectId: string;
  ports: TunnelPort[];
  public: boolean;
  createdAt: Date;
  expiresAt: Date;
}

const columns = ['id', 'runner_id', 'label', 'project_id', 'ports', 'public', 'created_at', 'expires_at'] as const;

function toRow(r: Pick<Selectable<RemoteTunnelsTable>, (typeof columns)[number]>): TunnelRow {
  return {
    id: r.id,
    runnerId: r.runner_id,
    label: r.label,
    projectId: r.project_id,
    ports: r.ports,
    public: r.public,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
  };
}

// Staleness is judged by the database's clock, the one that wrote the heartbeats.
const live = sql<boolean>`heartbeat_at > now() - ${`${connectionStaleMs} milliseconds`}::interval`;

export async function insertTunnel(
  db: DB,
  input: Omit<TunnelRow, 'createdAt'> & { tokenHash: string },
): Promise<TunnelRow> {
  const row = await db
    .insertInto('remote_tunnels')
    .values({
      id: input.id,
      runner_id: input.runnerId,
      label: input.label,
      project_id: input.projectId,
      ports: JSON.stringify(input.ports),
      public: input.public,
      token_hash: input.tokenHash,
      expires_at: input.expiresAt,
    })
    .returning(columns)
    .executeTakeFirstOrThrow();
  return toRow(row);
}

export async function listTunnels(db: DB, projectId: string): Promise<TunnelRow[]> {
  const rows = await db
    .selectFrom('remote_tunnels')
    .select(columns)
    .where('project_id', '=', projectId)
    .orderBy('created_at', 'desc')
    .execute();
  return rows.map(toRow);
}

export async function findTunnel(db: DB, projectId: string, runnerId: string): Promise<TunnelRow | undefined> {
  const row = await db
    .selectFrom('remote_tunnels')
    .select(columns)
    .where('project_id', '=', projectId)
    .where('runner_id', '=', runnerId)
    .executeTakeFirst();
  return row && toRow(row);
}

export async function findTunnelByTokenHash(db: DB, tokenHash: string): Promise<TunnelRow | undefined> {
  const row = await db
    .selectFrom('remote_tunnels')
    .select(columns)
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  return row && toRow(row);
}

export async function findTunnelByLabel(db: DB, label: string): Promise<TunnelRow | undefined> {
  const row = await db.selectFrom('remote_tunnels').select(columns).where('label', '=', label).executeTakeFirst();
  return row && toRow(row);
}

/** Deletes the tunnel and, by cascade, its connection rows; false when the project has no such tunnel. */
export async function deleteTunnel(db: DB, projectId: string, runnerId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('remote_tunnels')
    .where('project_id', '=', projectId)
    .where('runner_id', '=', runnerId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function liveConnectionCount(db: DB, tunnelId: string): Promise<number> {
  const row = await db
    .selectFrom('remote_tunnel_connections')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('tunnel_id', '=', tunnelId)
    .where(live)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function liveConnectionCounts(db: DB, tunnelIds: string[]): Promise<Map<string, number>> {
  if (tunnelIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('remote_tunnel_connections')
    .select((eb) => ['tunnel_id', eb.fn.countAll<string>().as('n')])
    .where('tunnel_id', 'in', tunnelIds)
    .where(live)
    .groupBy('tunnel_id')
    .execute();
  return new Map(rows.map((r) => [r.tunnel_id, Number(r.n)]));
}

/** The edges holding a live connection of the tunnel with this label, one entry per connection. */
export async function liveEdgeUrls(db: DB, label: string): Promise<string[]> {
  const rows = await db
    .selectFrom('remote_tunnel_connections as c')
    .innerJoin('remote_tunnels as t', 't.id', 'c.tunnel_id')
    .select('c.edge_url')
    .where('t.label', '=', label)
    .where('t.expires_at', '>', new Date())
    .where(sql<boolean>`c.heartbeat_at > now() - ${`${connectionStaleMs} milliseconds`}::interval`)
    .execute();
  return rows.map((r) => r.edge_url);
}

export async function insertConnection(
  db: DB,
  input: { id: string; tunnelId: string; edgeUrl: string },
): Promise<void> {
  await db
    .insertInto('remote_tunnel_connections')
    .values({ id: input.id, tunnel_id: input.tunnelId, edge_url: input.edgeUrl })
    .execute();
}

export async function deleteConnection(db: DB, id: string): Promise<void> {
  await db.deleteFrom('remote_tunnel_connections').where('id', '=', id).execute();
}

/**
 * Refreshes the heartbeat of these connections and returns the ids whose tunnel is gone (deleted, so the
 * row cascaded away) or expired: their edge closes them.
 */
export async function heartbeatConnections(db: DB, ids: string[]): Promise<{ deleted: string[]; expired: string[] }> {
  if (ids.length === 0) return { deleted: [], expired: [] };
  const kept = await db
    .updateTable('remote_tunnel_connections as c')
    .from('remote_tunnels as t')
    .set({ heartbeat_at: sql`now()` })
    .whereRef('t.id', '=', 'c.tunnel_id')
    .where('c.id', 'in', ids)
    .returning(['c.id', 't.expires_at'])
    .execute();
  const present = new Set(kept.map((r) => r.id));
  const now = Date.now();
  return {
    deleted: ids.filter((id) => !present.has(id)),
    expired: kept.filter((r) => r.expires_at.getTime() <= now).map((r) => r.id),
  };
}
