import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { loadConfig } from '../../src/config.js';
import { createDatabase, type DB } from '../../src/db/database.js';
import { clientAddressOf, parseTrustedProxies } from '../../src/domain/trusted-proxies.js';
import { signInLimits } from '../../src/services/sign-in-throttle.js';
import { createApiContext, databaseUrlOf, type ApiContext } from '../support/app-context.js';
import { reserveAppUrl } from '../support/dashboard.js';
import { serveForSignIn, type SignInServer } from '../support/sign-in-http.js';

// The sign-in throttle across API processes and proxies: every instance reads the same counts from Postgres, and a
// client is its socket's peer unless that peer is a proxy PROCTOR_TRUSTED_PROXIES names.

const madeUp = () => `prt_${randomBytes(30).toString('base64url').slice(0, 40)}`;

describe('sign-in throttle shared through Postgres', () => {
  let ctx: ApiContext;
  const pools: DB[] = [];
  const servers: SignInServer[] = [];
  /** Another API process of the installation: its own connection pool, its own app, the same database. */
  async function instance(trustedProxies?: string): Promise<SignInServer> {
    const db = createDatabase({ kind: 'postgres', url: databaseUrlOf(ctx.db)!, maxConnections: 2 });
    pools.push(db);
    const appUrl = await reserveAppUrl();
    const app = createApp({
      ...ctx.deps,
      db,
      config: { ...ctx.deps.config, appUrl, PROCTOR_TRUSTED_PROXIES: trustedProxies },
    });
    const server = await serveForSignIn(app, appUrl);
    servers.push(server);
    return server;
  }
  const auditedAddresses = async (kind: string) =>
    (
      await ctx.db
        .selectFrom('audit_events')
        .select('client_address')
        .where('kind', '=', kind)
        .orderBy('created_at')
        .execute()
    ).map((r) => r.client_address);

  let a: SignInServer;
  let b: SignInServer;
  beforeAll(async () => {
    ctx = await createApiContext('postgres');
    a = await instance();
    b = await instance();
  });
  afterAll(async () => {
    for (const s of servers) await s.close();
    for (const db of pools) await db.destroy();
    await ctx?.close();
  });

  it('counts failures on one instance against the other: 5 on each, and both refuse the 11th', async () => {
    for (let i = 0; i < signInLimits.perAddress / 2; i++) {
      expect((await a.signIn(madeUp(), '127.0.0.2')).status).toBe(401);
      expect((await b.signIn(madeUp(), '127.0.0.2')).status).toBe(401);
    }
    for (const s of [a, b]) {
      const blocked = await s.signIn(ctx.tenant.token, '127.0.0.2');
      expect(blocked.status).toBe(429);
      expect(blocked.body).toContain('Too many failed sign-ins from your network address');
    }
    expect((await b.signIn(ctx.tenant.token, '127.0.0.3')).status).toBe(303);
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy (the default): spoofing a new address each try does not help', async () => {
    for (let i = 0; i < signInLimits.perAddress; i++) {
      expect((await a.signIn(madeUp(), '127.0.0.4', { 'x-forwarded-for': `198.51.100.${i + 1}` })).status).toBe(401);
    }
    expect((await b.signIn(ctx.tenant.token, '127.0.0.4', { 'x-forwarded-for': '198.51.100.99' })).status).toBe(429);
    const failed = await auditedAddresses('sign_in.failed');
    expect(failed.filter((f) => f === '127.0.0.4')).toHaveLength(signInLimits.perAddress);
    expect(failed.some((f) => f?.startsWith('198.51.100.'))).toBe(false);
  });

  it('behind a trusted proxy throttles the forwarded client, not the proxy, and ignores what the client prepended', async () => {
    const proxied = await instance('loopback');
    const forwarded = (client: string) => ({ 'x-forwarded-for': client });
    for (let i = 0; i < signInLimits.perAddress; i++)
      expect((await proxied.signIn(madeUp(), '127.0.0.5', forwarded('203.0.113.7'))).status).toBe(401);
    expect((await proxied.signIn(ctx.tenant.token, '127.0.0.5', forwarded('203.0.113.7'))).status).toBe(429);
    // The client wrote "203.0.113.8" itself; the proxy appended the address it saw.
    expect((await proxied.signIn(ctx.tenant.token, '127.0.0.5', forwarded('203.0.113.8, 203.0.113.7'))).status).toBe(
      429,
    );
    // Another client behind the same proxy is not blocked.
    expect((await proxied.signIn(ctx.tenant.token, '127.0.0.5', forwarded('203.0.113.8'))).status).toBe(303);
    expect((await auditedAddresses('sign_in.failed')).filter((f) => f === '203.0.113.7')).toHaveLength(
      signInLimits.perAddress,
    );
    expect(await auditedAddresses('sign_in.succeeded')).toContain('203.0.113.8');

    // A list that names other proxies does not make a loopback peer one.
    const elsewhere = await instance('10.0.0.0/8, fd00::/8');
    expect((await elsewhere.signIn(madeUp(), '127.0.0.6', forwarded('203.0.113.9'))).status).toBe(401);
    expect((await auditedAddresses('sign_in.failed')).at(-1)).toBe('127.0.0.6');
  });
});

describe('PROCTOR_TRUSTED_PROXIES', () => {
  it('reads the client from the right, past trusted hops only', () => {
    const trusted = parseTrustedProxies('loopback, 10.0.0.0/8, 2001:db8::/32');
    expect(clientAddressOf('127.0.0.1', '203.0.113.7', trusted)).toBe('203.0.113.7');
    expect(clientAddressOf('::ffff:127.0.0.1', '1.2.3.4, 203.0.113.7, 10.1.2.3', trusted)).toBe('203.0.113.7');
    expect(clientAddressOf('::1', '2001:db8::5, 10.0.0.9', trusted)).toBe('2001:db8::5'); // every hop trusted: the leftmost
    expect(clientAddressOf('127.0.0.1', 'not-an-ip', trusted)).toBe('127.0.0.1');
    expect(clientAddressOf('192.0.2.1', '203.0.113.7', trusted)).toBe('192.0.2.1');
    expect(clientAddressOf('127.0.0.1', '203.0.113.7', parseTrustedProxies(undefined))).toBe('127.0.0.1');
    expect(clientAddressOf('127.0.0.1', undefined, trusted)).toBe('127.0.0.1');
  });

  it('refuses an entry that is no address, range or "loopback", naming it', () => {
    for (const bad of ['everyone', '10.0.0.0/33', '10.0.0.0/8/1', '::1/129', '300.1.1.1']) {
      expect(() => parseTrustedProxies(`loopback, ${bad}`)).toThrow(
        `"${bad}" is not an address, a CIDR range or "loopback"`,
      );
      expect(() => loadConfig('dev', { PROCTOR_TRUSTED_PROXIES: bad })).toThrow(
        /PROCTOR_TRUSTED_PROXIES: .* is not an address/,
      );
    }
    expect(loadConfig('dev', { PROCTOR_TRUSTED_PROXIES: 'loopback,192.168.0.0/16' }).PROCTOR_TRUSTED_PROXIES).toBe(
      'loopback,192.168.0.0/16',
    );
  });
});
