// The remote-tunnel routes through the app: shapes of the spec, validation, 404s across projects, the token
// stored only as a hash, status from live (not stale) connection rows, the 12-hour lifetime.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/ids.js';
import { insertConnection } from '../../src/db/queries/tunnels.js';
import { newId } from '../../src/ids.js';
import { createApiContext, type ApiContext } from '../support/app-context.js';

let ctx: ApiContext;

beforeAll(async () => {
  ctx = await createApiContext('pglite');
});
afterAll(async () => {
  await ctx?.close();
});

const create = (body: unknown, token?: string) => ctx.call('POST', '/v1/remote-tunnels', body, token);

describe('remote tunnel routes', () => {
  it('creates a tunnel with one hostname per port, a token shown once and stored hashed, expiring in 12 hours', async () => {
    const before = Date.now();
    const res = await create({ ports: [{ localPort: 3000, subdomain: 'web' }, { localPort: 5173 }] });
    expect(res.status).toBe(200);
    const { runnerId, hostnames, tunnelToken, expiresAt } = res.body;
    expect(runnerId).toMatch(/^tunnel_[a-z0-9]{12}$/);
    const label = runnerId.slice('tunnel_'.length);
    expect(hostnames).toEqual([
      { localPort: 3000, url: `http://web-${label}.tunnel.localhost` },
      { localPort: 5173, url: `http://p5173-${label}.tunnel.localhost` },
    ]);
    const lifetime = Date.parse(expiresAt) - before;
    expect(lifetime).toBeGreaterThan(12 * 3600_000 - 60_000);
    expect(lifetime).toBeLessThanOrEqual(12 * 3600_000 + 1_000);
    const row = await ctx.db
      .selectFrom('remote_tunnels')
      .selectAll()
      .where('runner_id', '=', runnerId)
      .executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(hashToken(tunnelToken));
    expect(JSON.stringify(row)).not.toContain(tunnelToken);
  });

  it('refuses bad input with 400 and a message, creating nothing', async () => {
    const count = async () => (await ctx.call('GET', '/v1/remote-tunnels')).body.tunnels.length;
    const before = await count();
    for (const [body, message] of [
      [{}, /ports/],
      [{ ports: [] }, /ports/],
      [{ ports: [{ localPort: 70000 }] }, /localPort/],
      [{ ports: [{ localPort: 3000, protocol: 'ftp' }] }, /protocol/],
      [{ ports: [{ localPort: 3000, subdomain: 'Bad_Name' }] }, /subdomain/],
      [{ ports: [{ localPort: 3000 }, { localPort: 3000 }] }, /listed twice/],
      [
        {
          ports: [
            { localPort: 3000, subdomain: 'web' },
            { localPort: 3001, subdomain: 'web' },
          ],
        },
        /used twice/,
      ],
      [{ ports: [{ localPort: 3000 }], public: 'yes' }, /public/],
    ] as const) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    expect(await count()).toBe(before);
  });

  it('lists the project’s tunnels with their status and expiry; other projects see none of them', async () => {
    const { body } = await create({ ports: [{ localPort: 8080 }], public: true });
    const list = await ctx.call('GET', '/v1/remote-tunnels');
    expect(list.status).toBe(200);
    const mine = list.body.tunnels.find((t: { runnerId: string }) => t.runnerId === body.runnerId);
    expect(mine).toMatchObject({
      runnerId: body.runnerId,
      hostnames: body.hostnames,
      public: true,
      isExpired: false,
      status: 'inactive',
      connections: 0,
    });
    const theirs = await ctx.call('GET', '/v1/remote-tunnels', undefined, ctx.other.token);
    expect(theirs.body.tunnels).toEqual([]);
    expect(
      (await ctx.call('GET', `/v1/remote-tunnels/${body.runnerId}/status`, undefined, ctx.other.token)).status,
    ).toBe(404);
    expect((await ctx.call('DELETE', `/v1/remote-tunnels/${body.runnerId}`, undefined, ctx.other.token)).status).toBe(
      404,
    );
  });

  it('derives status from live connections: 0 inactive, 1-3 degraded, 4 healthy; stale heartbeats do not count', async () => {
    const { body } = await create({ ports: [{ localPort: 4000 }] });
    const tunnel = await ctx.db
      .selectFrom('remote_tunnels')
      .select('id')
      .where('runner_id', '=', body.runnerId)
      .executeTakeFirstOrThrow();
    const status = async () => (await ctx.call('GET', `/v1/remote-tunnels/${body.runnerId}/status`)).body;
    expect(await status()).toEqual({ status: 'inactive', connections: 0, hostnames: body.hostnames });
    const ids: string[] = [];
    const seen: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const id = newId();
      ids.push(id);
      await insertConnection(ctx.db, { id, tunnelId: tunnel.id, edgeUrl: 'http://127.0.0.1:3000' });
      seen.push(`${(await status()).connections}:${(await status()).status}`);
    }
    expect(seen).toEqual(['1:degraded', '2:degraded', '3:degraded', '4:healthy']);
    // An edge that died without cleaning up stops heartbeating: its rows age out.
    await ctx.db
      .updateTable('remote_tunnel_connections')
      .set({ heartbeat_at: new Date(Date.now() - 60_000) })
      .where('id', 'in', ids.slice(0, 2))
      .execute();
    expect(await status()).toMatchObject({ status: 'degraded', connections: 2 });
  });

  it('deletes a tunnel once: then 404 for status and delete', async () => {
    const { body } = await create({ ports: [{ localPort: 4001 }] });
    expect(await ctx.call('DELETE', `/v1/remote-tunnels/${body.runnerId}`)).toMatchObject({
      status: 200,
      body: { deleted: true },
    });
    for (const [method, path] of [
      ['GET', `/v1/remote-tunnels/${body.runnerId}/status`],
      ['DELETE', `/v1/remote-tunnels/${body.runnerId}`],
    ] as const) {
      const res = await ctx.call(method, path);
      expect(res.status).toBe(404);
      expect(res.body.message).toMatch(/Remote tunnel not found/);
    }
    expect((await ctx.call('GET', '/v1/remote-tunnels/not-a-runner/status')).status).toBe(400);
  });

  it('requires the API token and documents the routes under the Tunnels tag', async () => {
    expect((await create({ ports: [{ localPort: 3000 }] }, null as unknown as string)).status).toBe(401);
    const doc = (await ctx.call('GET', '/v1/openapi.json')).body;
    expect(doc.tags.map((t: { name: string }) => t.name)).toContain('Tunnels');
    for (const path of [
      '/v1/remote-tunnels',
      '/v1/remote-tunnels/{runnerId}/status',
      '/v1/remote-tunnels/{runnerId}',
    ]) {
      const ops = Object.values(doc.paths[path] ?? {}) as Array<{ tags: string[] }>;
      expect(ops.length, path).toBeGreaterThan(0);
      for (const op of ops) expect(op.tags).toEqual(['Tunnels']);
    }
  });
});
