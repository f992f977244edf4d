import { createHash } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumFlags } from '../../src/browser/context/pool.js';
import {
  addressRefusal,
  createNetworkGuard,
  installNetworkGuard,
  type NetworkGuard,
} from '../../src/browser/context/network-guard.js';
import { startEgressProxy, type EgressProxy } from '../../src/browser/context/egress-proxy.js';
import { loadPrograms } from '../../src/programs.js';

const metadata = '169.254.169.254';

// Names the tests make up; anything else does not resolve.
const fakeDns: Record<string, string[]> = {
  'public.test': ['93.184.216.34'],
  'app.test': ['127.0.0.1'],
  'rebind.test': [metadata],
  'mixed.test': ['93.184.216.34', metadata],
  'mapped.test': ['::ffff:169.254.169.254'],
  'intranet.test': ['10.1.2.3'],
};
async function fakeResolve(host: string): Promise<string[]> {
  const found = fakeDns[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found;
}

function guard(allowPrivateNetworks: boolean): NetworkGuard {
  return createNetworkGuard({ allowPrivateNetworks, resolve: fakeResolve });
}

describe('network guard checks', () => {
  const strict = guard(false);
  const lenient = guard(true);

  it.each([
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://metadata/',
    'http://metadata.azure.com/',
    'http://instance-data/latest/',
    'http://METADATA.google.internal./',
  ])('refuses the cloud metadata host %s even with private networks allowed', async (url) => {
    const verdict = await lenient.check(url);
    expect(verdict).toMatchObject({ allowed: false, reason: expect.stringContaining('metadata') });
  });

  it.each([
    `http://${metadata}/latest/meta-data/`,
    'http://[fd00:ec2::254]/',
    'http://100.100.100.200/latest/meta-data/',
    'http://169.254.170.2/v2/credentials',
  ])('refuses the cloud metadata address in %s even with private networks allowed', async (url) => {
    expect(await lenient.check(url)).toMatchObject({ allowed: false, reason: expect.stringContaining('metadata') });
  });

  it.each(['http://169.254.1.2/', 'http://[fe80::1]/', 'https://[fe80::abcd:1]:8443/'])(
    'refuses link-local %s even with private networks allowed',
    async (url) => {
      expect(await lenient.check(url)).toMatchObject({ allowed: false, reason: expect.stringContaining('link-local') });
    },
  );

  it.each([
    'http://10.0.0.1/',
    'http://172.16.5.4/',
    'http://172.31.255.254/',
    'http://192.168.1.1/',
    'http://127.0.0.1:8080/',
    'http://[::1]/',
    'http://[fd12:3456::1]/',
    'http://100.64.0.1/',
    'http://0.0.0.0/',
    'http://localhost:3000/',
    'http://app.localhost/',
    'http://intranet.test/',
  ])('refuses private %s unless private networks are allowed', async (url) => {
    expect(await strict.check(url)).toMatchObject({
      allowed: false,
      reason: expect.stringMatching(/private networks are not allowed/),
    });
    if (!url.includes('localhost')) expect(await lenient.check(url)).toEqual({ allowed: true });
  });

  it('allows public addresses and names', async () => {
    expect(await strict.check('https://93.184.216.34/')).toEqual({ allowed: true });
    expect(await strict.check('http://172.32.0.1/')).toEqual({ allowed: true });
    expect(await strict.check('https://public.test/path?q=1')).toEqual({ allowed: true });
    expect(await strict.check('wss://public.test/socket')).toEqual({ allowed: true });
  });

  it.each([
    'file:///etc/passwd',
    'chrome://version',
    'view-source:http://public.test/',
    'ftp://public.test/',
    'javascript:alert(1)',
    'about:config',
    'not a url',
  ])('refuses %s', async (url) => {
    expect(await lenient.check(url)).toMatchObject({ allowed: false });
  });

  it.each(['data:text/html,<h1>hi</h1>', 'about:blank', 'blob:http://public.test/0b5e'])(
    'allows page-internal %s',
    async (url) => {
      expect(await strict.check(url)).toEqual({ allowed: true });
    },
  );

  it.each([
    'http://[::ffff:169.254.169.254]/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://0xA9FEA9FE/',
    'http://2852039166/',
    'http://0251.0376.0251.0376/',
    'http://169.254.43518/',
  ])('refuses the metadata address written as %s', async (url) => {
    expect(await lenient.check(url)).toMatchObject({ allowed: false, reason: expect.stringContaining(metadata) });
  });

  it('refuses a private address inside an IPv4-mapped IPv6 address', async () => {
    expect(await strict.check('http://[::ffff:10.0.0.1]/')).toMatchObject({ allowed: false });
    expect(await lenient.check('http://[::ffff:10.0.0.1]/')).toEqual({ allowed: true });
  });

  it('checks every address a name resolves to', async () => {
    expect(await lenient.check('http://rebind.test/latest/meta-data/')).toMatchObject({
      allowed: false,
      reason: `rebind.test resolves to cloud metadata address ${metadata}`,
    });
    expect(await lenient.check('http://mixed.test/')).toMatchObject({
      allowed: false,
      reason: expect.stringContaining(metadata),
    });
    expect(await lenient.check('http://mapped.test/')).toMatchObject({
      allowed: false,
      reason: expect.stringContaining(metadata),
    });
  });

  it('refuses a name that does not resolve, marked as unresolved', async () => {
    expect(await lenient.check('http://nowhere.test/')).toMatchObject({ allowed: false, unresolved: true });
  });

  it('classifies addresses', () => {
    expect(addressRefusal('8.8.8.8', false)).toBeUndefined();
    expect(addressRefusal('2606:4700::1111', false)).toBeUndefined();
    expect(addressRefusal('224.0.0.251', true)).toContain('reserved');
    expect(addressRefusal('::ffff:8.8.8.8', false)).toBeUndefined();
  });

  it('reuses a resolution for a while', async () => {
    let calls = 0;
    const counted = createNetworkGuard({
      allowPrivateNetworks: false,
      cacheTtlMs: 100,
      resolve: async () => {
        calls += 1;
        return ['93.184.216.34'];
      },
    });
    await Promise.all([counted.check('http://public.test/a'), counted.check('http://public.test/b')]);
    await counted.check('http://public.test/c');
    expect(calls).toBe(1);
    await new Promise((r) => setTimeout(r, 150));
    await counted.check('http://public.test/d');
    expect(calls).toBe(2);
  });

  it('offers a lookup that yields only checked addresses', async () => {
    const lookup = (host: string) =>
      new Promise<unknown>((resolve, reject) =>
        lenient.lookup(host, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
      );
    await expect(lookup('app.test')).resolves.toEqual([{ address: '127.0.0.1', family: 4 }]);
    await expect(lookup('rebind.test')).rejects.toMatchObject({ code: 'EBLOCKED' });
    await expect(lookup(metadata)).rejects.toMatchObject({ code: 'EBLOCKED' });
    await expect(lookup('nowhere.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });
});

describe('network guard in Chromium', () => {
  let browser: Browser;
  let server: Server;
  let base: string;
  let port: number;
  const served: string[] = [];
  const upgraded: Duplex[] = [];
  const streams: ServerResponse[] = [];
  const open: Array<{ context: BrowserContext; proxy: EgressProxy }> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      served.push(req.url ?? '');
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname === '/redirect') {
        res.writeHead(302, { location: url.searchParams.get('to') ?? '/' }).end();
        return;
      }
      if (url.pathname === '/events') {
        // A stream whose first event is a long way off: only its head is sent now.
        res.writeHead(200, { 'content-type': 'text/event-stream', 'access-control-allow-origin': '*' });
        res.flushHeaders();
        streams.push(res);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>${url.pathname}</title><h1>${url.pathname}</h1>`);
    });
    // Just enough of a WebSocket server for a handshake.
    server.on('upgrade', (req, socket) => {
      upgraded.push(socket);
      const accept = createHash('sha1')
        .update(`${String(req.headers['sec-websocket-key'])}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
        .digest('base64');
      socket.write(
        `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
    browser = await chromium.launch({ executablePath: loadPrograms().chromium, args: chromiumFlags });
  });

  afterAll(async () => {
    await Promise.all(open.map(async ({ context, proxy }) => (await context.close(), await proxy.close())));
    await browser?.close();
    // Upgraded sockets no longer belong to the server: close() would wait for them.
    upgraded.forEach((socket) => socket.destroy());
    streams.forEach((stream) => stream.end());
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
  });

  // What the pool does for each job: traffic through the egress proxy, first hops through the route.
  async function guarded(allowPrivateNetworks: boolean) {
    const blocked: Array<{ url: string; reason: string }> = [];
    const onBlocked = (url: string, reason: string) => blocked.push({ url, reason });
    const g = guard(allowPrivateNetworks);
    const proxy = await startEgressProxy(g, onBlocked);
    const context = await browser.newContext({ proxy: { server: proxy.server, bypass: '<-loopback>' } });
    await installNetworkGuard(context, g, onBlocked);
    open.push({ context, proxy });
    return { context, page: await context.newPage(), blocked };
  }

  const to = (target: string) => `${base}/redirect?to=${encodeURIComponent(target)}`;

  it('blocks a navigation to the metadata address', async () => {
    const { page, blocked } = await guarded(true);
    await expect(page.goto(`http://${metadata}/latest/meta-data/`)).rejects.toThrow(/ERR_BLOCKED_BY_CLIENT/);
    expect(blocked).toEqual([
      { url: `http://${metadata}/latest/meta-data/`, reason: expect.stringContaining('metadata') },
    ]);
  });

  it('loads an allowed page', async () => {
    const { page, blocked } = await guarded(true);
    const response = await page.goto(`${base}/hello`);
    expect(response?.status()).toBe(200);
    expect(await page.textContent('h1')).toBe('/hello');
    expect(blocked).toEqual([]);
  });

  it('blocks a redirect from an allowed page to the metadata address', async () => {
    const { page, blocked } = await guarded(true);
    served.length = 0;
    await expect(page.goto(to(`http://${metadata}/`))).rejects.toThrow();
    expect(served).toEqual([`/redirect?to=${encodeURIComponent(`http://${metadata}/`)}`]);
    expect(blocked).toEqual([{ url: `http://${metadata}/`, reason: expect.stringContaining('metadata') }]);
    expect(page.url()).not.toContain(metadata);
  });

  it('blocks the metadata address at the end of a redirect chain', async () => {
    const { page, blocked } = await guarded(true);
    await expect(page.goto(to(to(`http://${metadata}/latest/meta-data/iam/`)))).rejects.toThrow();
    expect(blocked.map((b) => b.url)).toEqual([`http://${metadata}/latest/meta-data/iam/`]);
  });

  it('blocks a redirect to https on the metadata address', async () => {
    const { page, blocked } = await guarded(true);
    await expect(page.goto(to(`https://${metadata}/`))).rejects.toThrow(/ERR_TUNNEL_CONNECTION_FAILED/);
    expect(blocked).toEqual([{ url: `https://${metadata}:443/`, reason: expect.stringContaining('metadata') }]);
  });

  it('blocks a redirect to a name that resolves to the metadata address', async () => {
    const { page, blocked } = await guarded(true);
    await expect(page.goto(to('http://rebind.test/latest/meta-data/'))).rejects.toThrow();
    expect(blocked).toEqual([
      {
        url: 'http://rebind.test/latest/meta-data/',
        reason: `rebind.test resolves to cloud metadata address ${metadata}`,
      },
    ]);
  });

  it('connects to the address the guard resolved, not one Chromium resolved', async () => {
    const { page } = await guarded(true);
    // app.test exists only in the guard's resolver.
    await page.goto(`http://app.test:${port}/by-name`);
    expect(await page.textContent('h1')).toBe('/by-name');
  });

  it('refuses 127.0.0.1 and localhost when private networks are not allowed', async () => {
    const { context, blocked } = await guarded(false);
    await expect((await context.newPage()).goto(`${base}/hello`)).rejects.toThrow(/ERR_BLOCKED_BY_CLIENT/);
    await expect((await context.newPage()).goto(`http://localhost:${port}/hello`)).rejects.toThrow(
      /ERR_BLOCKED_BY_CLIENT/,
    );
    expect(blocked.map((b) => b.reason)).toEqual([
      expect.stringContaining('loopback'),
      expect.stringContaining('loopback'),
    ]);
  });

  it('refuses file: URLs', async () => {
    const { page, blocked } = await guarded(true);
    await expect(page.goto('file:///etc/passwd')).rejects.toThrow(/ERR_BLOCKED_BY_CLIENT/);
    expect(blocked).toEqual([{ url: 'file:///etc/passwd', reason: 'scheme file: is not allowed' }]);
  });

  it('refuses fetch() and WebSockets from the page to the metadata address, directly and through a redirect', async () => {
    const { page, blocked } = await guarded(true);
    await page.goto(`${base}/app`);
    const outcome = await page.evaluate(
      async ({ direct, redirected, socket }) => {
        const tryFetch = (url: string) =>
          fetch(url).then(
            (r) => `status ${r.status}`,
            (e: Error) => e.name,
          );
        const trySocket = (url: string) =>
          new Promise<string>((resolve) => {
            const ws = new WebSocket(url);
            ws.onopen = () => resolve('open');
            ws.onerror = () => resolve('error');
          });
        return {
          direct: await tryFetch(direct),
          redirected: await tryFetch(redirected),
          socket: await trySocket(socket),
        };
      },
      {
        direct: `http://${metadata}/latest/meta-data/`,
        redirected: to(`http://${metadata}/latest/user-data`),
        socket: `ws://${metadata}/`,
      },
    );
    expect(outcome).toEqual({ direct: 'TypeError', redirected: 'TypeError', socket: 'error' });
    expect(blocked.map((b) => b.url)).toEqual([
      `http://${metadata}/latest/meta-data/`,
      `http://${metadata}/latest/user-data`,
      `http://${metadata}:80/`,
    ]);
  });

  // A stream's head passes through the proxy at once: an EventSource opens before its first event (the server holds
  // it back), as a WebSocket opens on its handshake.
  it.each([
    ['WebSocket', `ws://app.test:PORT/live`],
    ['EventSource', `http://app.test:PORT/events`],
  ] as const)('lets an allowed %s through the proxy, open before any message', async (kind, url) => {
    const { page, blocked } = await guarded(true);
    await page.goto(`${base}/app`);
    const outcome = await page.evaluate(
      ([kind, url]) =>
        new Promise<string>((resolve) => {
          const stream = kind === 'WebSocket' ? new WebSocket(url) : new EventSource(url);
          stream.onopen = () => resolve('open');
          stream.onerror = () => resolve('error');
          setTimeout(() => resolve('not open after 5 s'), 5_000);
        }),
      [kind, url.replace('PORT', String(port))] as const,
    );
    expect(outcome).toBe('open');
    expect(blocked).toEqual([]);
  });

  // Why the egress proxy exists: Playwright continues redirect hops itself, without calling route handlers.
  it('shows that routing alone never sees a redirect hop', async () => {
    const context = await browser.newContext();
    open.push({ context, proxy: { server: '', close: async () => undefined } });
    const routed: string[] = [];
    const requested: Array<{ url: string; from?: string }> = [];
    await context.route('**/*', (route) => (routed.push(route.request().url()), route.fallback()));
    context.on('request', (request) => requested.push({ url: request.url(), from: request.redirectedFrom()?.url() }));
    const page = await context.newPage();
    await page.goto(to(to(`${base}/landed`)));
    expect(await page.textContent('h1')).toBe('/landed');
    expect(routed).toEqual([to(to(`${base}/landed`))]);
    expect(requested.map((r) => r.url)).toEqual([to(to(`${base}/landed`)), to(`${base}/landed`), `${base}/landed`]);
    expect(requested[2]!.from).toBe(to(`${base}/landed`));
  });
});
