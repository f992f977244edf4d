// Several API processes on one database: the tunnel client holds its connections on one of them; status is
// the same through any of them, and a request reaching another one is relayed to the edge that holds them.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentProjectHeader, agentSecretHeader } from '../../src/tunnels/protocol.js';
import { freshDatabase } from '../support/app-context.js';
import { waitFor } from '../support/net.js';
import {
  requestTunnel,
  spawnTunnel,
  startLocalApp,
  startTunnelStack,
  type TunnelProcess,
  type TunnelStack,
} from '../support/tunnel-stack.js';
import type { DB } from '../../src/db/database.js';

let db: DB;
let holder: TunnelStack;
let other: TunnelStack;
let app: Awaited<ReturnType<typeof startLocalApp>>;
let tunnel: TunnelProcess;
const secret = randomBytes(24).toString('hex');

const statusVia = async (stack: TunnelStack, runnerId: string) => {
  const res = await fetch(`${stack.apiUrl}/v1/remote-tunnels/${runnerId}/status`, {
    headers: { authorization: `Bearer ${holder.tenant.token}` },
  });
  return (await res.json()) as { status: string; connections: number };
};

beforeAll(async () => {
  db = await freshDatabase('postgres');
  [holder, other] = await Promise.all([startTunnelStack({ db, secret }), startTunnelStack({ db, secret })]);
  app = await startLocalApp();
  tunnel = await spawnTunnel(['--port', `web=${app.port}`, '--api-url', holder.apiUrl], {
    PROCTOR_TOKEN: holder.tenant.token,
  });
  await waitFor(async () => (await statusVia(holder, tunnel.runnerId())).connections === 4, 20_000, 'four connections');
});

afterAll(async () => {
  tunnel?.child.kill('SIGKILL');
  await app?.close();
  await other?.close();
  await holder?.close();
  await db?.destroy();
});

describe('tunnels behind several API processes', () => {
  it('reports the same live status through an API process that holds no connection', async () => {
    expect(holder.edge.connectionCounts().get(tunnel.runnerId())).toBe(4);
    expect(other.edge.connectionCounts().get(tunnel.runnerId())).toBeUndefined();
    expect(await statusVia(other, tunnel.runnerId())).toMatchObject({ status: 'healthy', connections: 4 });
  });

  it('relays a request that reaches the other API process to the one holding the connections', async () => {
    const host = new URL(tunnel.urlFor(app.port)).host;
    const res = await requestTunnel(other.apiUrl, {
      host,
      headers: { [agentSecretHeader]: secret, [agentProjectHeader]: holder.tenant.projectId },
    });
    expect(res.status).toBe(200);
    expect(res.body.toString()).toContain('Running on my machine');
    // The private tunnel stays closed on this path too, also to the agents of another project.
    expect((await requestTunnel(other.apiUrl, { host })).status).toBe(403);
    expect(
      (
        await requestTunnel(other.apiUrl, {
          host,
          headers: { [agentSecretHeader]: secret, [agentProjectHeader]: other.tenant.projectId },
        })
      ).status,
    ).toBe(403);
  });
});
