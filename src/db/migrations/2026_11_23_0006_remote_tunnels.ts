import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// A remote tunnel exposes ports of a developer's machine; its client holds WebSocket connections to the
// tunnel edge in some API process. Each live connection is a row that its edge refreshes (heartbeat), so
// every API and worker process can count them and find which edge holds one.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const now = sql`now()`;
  await db.schema
    .createTable('remote_tunnels')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('runner_id', 'text', (c) => c.notNull().unique())
    // The lower-case part of the runner id that every hostname of the tunnel ends its first label with.
    .addColumn('label', 'text', (c) => c.notNull().unique())
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('ports', 'jsonb', (c) => c.notNull())
    .addColumn('public', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('remote_tunnels_project_created')
    .on('remote_tunnels')
    .columns(['project_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('remote_tunnel_connections')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('tunnel_id', 'uuid', (c) => c.notNull().references('remote_tunnels.id').onDelete('cascade'))
    // Where workers reach the API process holding this connection.
    .addColumn('edge_url', 'text', (c) => c.notNull())
    .addColumn('connected_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('heartbeat_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .execute();
  await db.schema
    .createIndex('remote_tunnel_connections_tunnel')
    .on('remote_tunnel_connections')
    .columns(['tunnel_id', 'heartbeat_at'])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('remote_tunnel_connections').execute();
  await db.schema.dropTable('remote_tunnels').execute();
}
