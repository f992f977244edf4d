// `proctor tunnel` end to end: a local app on a loopback port that the browser may not reach directly is
// reached through the tunnel by a real Chromium behind the worker's egress proxy; status follows the live
// connections; the client stops when the tunnel is deleted or on Ctrl-C.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNetworkGuard } from '../../src/browser/context/network-guard.js';
import { createBrowserPool, type BrowserPool } from '../../src/browser/context/pool.js';
import { createTunnelRouter } from '../../src/tunnels/agent-router.js';
import { seedProject } from '../../src/db/queries/admin.js';
import { agentProjectHeader, agentSecretHeader } from '../../src/tunnels/protocol.js';
import { waitFor } from '../support/net.js';
import {
  bigDigest,
  bigDownloadBytes,
  spawnTunnel,
  startLocalApp,
  startRelay,
  startTunnelStack,
  requestTunnel,
  type TunnelProcess,
  type TunnelStack,
} from '../support/tunnel-stack.js';

let stack: TunnelStack;
let app: Awaited<ReturnType<typeof startLocalApp>>;
let relay: Awaited<ReturnType<typeof startRelay>>;
let browsers: BrowserPool;
let tunnel: TunnelProcess;
let url: string;
/** What a worker's router adds to the requests of a job of the tunnel's own project. */
let asAgent: Record<string, string>;

const status = async (runnerId: string) =>
  (await stack.call('GET', `/v1/remote-tunnels/${runnerId}/status`)).body as { status: string; connections: number };

beforeAll(async () => {
  stack = await startTunnelStack({ heartbeatMs: 500 });
  app = await startLocalApp();
  relay = await startRelay(Number(new URL(stack.apiUrl).port));
  const router = createTunnelRouter({ db: stack.db, domain: stack.domain, internalSecret: stack.secret });
  // Private ranges off, as in production: the app on 127.0.0.1 is out of the browser's reach.
  browsers = createBrowserPool({
    concurrency: 2,
    networkGuard: createNetworkGuard({ allowPrivateNetworks: false, isTunnelHost: router.isTunnelHost }),
    tunnels: router,
  });
  tunnel = await spawnTunnel(['--port', `web=${app.port}`, '--api-url', `http://127.0.0.1:${relay.port}`], {
    PROCTOR_TOKEN: stack.tenant.token,
  });
  url = tunnel.urlFor(app.port);
  asAgent = { [agentSecretHeader]: stack.secret, [agentProjectHeader]: stack.tenant.projectId };
  await waitFor(async () => (await status(tunnel.runnerId())).connections === 4, 20_000, 'four live connections');
});

afterAll(async () => {
  tunnel?.child.kill('SIGKILL');
  await browsers?.close();
  await relay?.close();
  await app?.close();
  await stack?.close();
});

describe('proctor tunnel', () => {
  it('prints one hostname per port under the tunnel domain and is healthy with four connections', async () => {
    expect(url).toMatch(new RegExp(`^http://web-[a-z0-9]+\\.${stack.domain.replace(/\./g, '\\.')}$`));
    expect(await status(tunnel.runnerId())).toEqual({
      status: 'healthy',
      connections: 4,
      hostnames: [{ localPort: app.port, url }],
    });
  });

  it('lets the browser reach the local app only through the tunnel, with server-sent events and a WebSocket echo', async () => {
    await browsers.withContext({ projectId: stack.tenant.projectId }, async ({ context, page }) => {
      const direct = await context.newPage();
      await expect(direct.goto(app.url)).rejects.toThrow(/ERR_/);
      await page.goto(`${url}/`);
      expect(await page.title()).toBe('Local app');
      await expect.poll(() => page.textContent('#sse'), { timeout: 10_000 }).toBe('sse: tick 3');
      await expect.poll(() => page.textContent('#ws'), { timeout: 10_000 }).toBe('ws: echo hello through the tunnel');
      expect(await page.textContent('#host')).toBe(`host: ${new URL(url).host}`);
    });
  });

  it('keeps a private tunnel closed to anyone but the agents of its own project', async () => {
    const host = new URL(url).host;
    const anonymous = await requestTunnel(stack.apiUrl, { host });
    expect(anonymous.status).toBe(403);
    const agent = await requestTunnel(stack.apiUrl, { host, headers: asAgent });
    expect(agent.status).toBe(200);
    expect(agent.body.toString()).toContain('Running on my machine');
    const wrong = await requestTunnel(stack.apiUrl, {
      host,
      headers: { ...asAgent, [agentSecretHeader]: 'x'.repeat(stack.secret.length) },
    });
    expect(wrong.status).toBe(403);
    const other = await seedProject(stack.db, { organization: 'Globex', project: 'Other' });
    const foreign = await requestTunnel(stack.apiUrl, {
      host,
      headers: { ...asAgent, [agentProjectHeader]: other.projectId },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body.toString()).toMatch(/private to another project/);
    expect((await requestTunnel(stack.apiUrl, { host, headers: { [agentSecretHeader]: stack.secret } })).status).toBe(
      403,
    );
  });

  it('lets a browser working for another project (or for none) not reach the private tunnel, whatever header its page sends', async () => {
    const other = await seedProject(stack.db, { organization: 'Initech', project: 'Elsewhere' });
    for (const projectId of [other.projectId, undefined]) {
      await browsers.withContext({ projectId }, async ({ page }) => {
        // The page forging the project header changes nothing: the worker's router sets it.
        await page.setExtraHTTPHeaders({ [agentProjectHeader]: stack.tenant.projectId });
        const res = await page.goto(`${url}/`);
        expect(res?.status()).toBe(403);
        expect(await page.textContent('body')).toMatch(/private/);
      });
    }
    // The same browser pool, working for the tunnel's project, gets through.
    await browsers.withContext({ projectId: stack.tenant.projectId }, async ({ page }) => {
      await page.goto(`${url}/`);
      expect(await page.title()).toBe('Local app');
    });
  });

  it('streams request and response bodies: a 1 MB upload echoed and a 10 MB download intact', async () => {
    const host = new URL(url).host;
    const upload = Buffer.alloc(1024 * 1024, 'abc');
    const echoed = await requestTunnel(stack.apiUrl, {
      host,
      path: '/echo',
      method: 'POST',
      headers: { ...asAgent, 'content-type': 'text/plain' },
      body: upload,
    });
    expect(echoed.status).toBe(200);
    expect(echoed.headers['x-seen-host']).toBe(`localhost:${app.port}`);
    expect(echoed.body.equals(upload)).toBe(true);
    const big = await requestTunnel(stack.apiUrl, { host, path: '/big', headers: asAgent });
    expect(big.body.length).toBe(bigDownloadBytes);
    expect(createHash('sha256').update(big.body).digest('hex')).toBe(bigDigest);
  });

  it('reports degraded then inactive as connections are killed, and healthy again once the client reconnects', async () => {
    const runnerId = tunnel.runnerId();
    relay.refuse(true);
    relay.cut(1);
    await waitFor(async () => (await status(runnerId)).connections === 3, 10_000, 'three connections');
    expect((await status(runnerId)).status).toBe('degraded');
    relay.cut(3);
    await waitFor(async () => (await status(runnerId)).connections === 0, 10_000, 'no connection');
    expect((await status(runnerId)).status).toBe('inactive');
    const host = new URL(url).host;
    const unreachable = await requestTunnel(stack.apiUrl, { host, headers: asAgent });
    expect(unreachable.status).toBe(502);
    relay.refuse(false);
    await waitFor(async () => (await status(runnerId)).connections === 4, 40_000, 'the client to reconnect');
    expect((await status(runnerId)).status).toBe('healthy');
  });

  it('stops the client when the tunnel is deleted', async () => {
    const runnerId = tunnel.runnerId();
    expect(await stack.call('DELETE', `/v1/remote-tunnels/${runnerId}`)).toEqual({
      status: 200,
      body: { deleted: true },
    });
    expect(await tunnel.exited).toBe(0);
    expect(tunnel.output()).toContain('the tunnel was deleted');
    expect((await stack.call('GET', `/v1/remote-tunnels/${runnerId}/status`)).status).toBe(404);
  });

  it('deletes the tunnel and exits on Ctrl-C', async () => {
    const second = await spawnTunnel(['--port', String(app.port), '--api-url', stack.apiUrl], {
      PROCTOR_TOKEN: stack.tenant.token,
    });
    const runnerId = second.runnerId();
    await waitFor(async () => (await status(runnerId)).connections === 4, 20_000, 'four live connections');
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
    const list = await stack.call('GET', '/v1/remote-tunnels');
    expect(list.body.tunnels.map((t: { runnerId: string }) => t.runnerId)).not.toContain(runnerId);
  });

  it('serves a public tunnel to anyone, and stops the client when the tunnel expires', async () => {
    const open = await spawnTunnel(['--port', String(app.port), '--public', '--api-url', stack.apiUrl], {
      PROCTOR_TOKEN: stack.tenant.token,
    });
    const runnerId = open.runnerId();
    await waitFor(async () => (await status(runnerId)).connections === 4, 20_000, 'four live connections');
    const host = new URL(open.urlFor(app.port)).host;
    const anonymous = await requestTunnel(stack.apiUrl, { host });
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.toString()).toContain('Running on my machine');
    await stack.db
      .updateTable('remote_tunnels')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('runner_id', '=', runnerId)
      .execute();
    expect(await open.exited).toBe(0);
    expect(open.output()).toContain('the tunnel expired');
    // The edge deletes each connection's row as its socket finishes closing: the client may exit before the last one.
    await waitFor(
      async () => (await status(runnerId)).status === 'inactive',
      5_000,
      'the expired tunnel to be inactive',
    );
    const list = (await stack.call('GET', '/v1/remote-tunnels')).body.tunnels;
    expect(list.find((t: { runnerId: string }) => t.runnerId === runnerId)).toMatchObject({
      isExpired: true,
      status: 'inactive',
    });
    await waitFor(
      async () => (await requestTunnel(stack.apiUrl, { host })).status === 410,
      5_000,
      'the expired tunnel to answer 410',
    );
  });
});
