import { createTransport } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInboxHost, type InboxHost } from '../../src/cli/inbox.js';
import { DEFAULT_INBOX_DOMAIN } from '../../src/config.js';
import { silentLogger } from '../../src/logger.js';
import { createApiContext, type ApiContext } from '../support/app-context.js';

// POST /v1/inbox/addresses: how an exported spec gets its {{INBOX}} / {{INBOX:name}} outside a run. The app here
// is configured without PROCTOR_INBOX_DOMAIN, so it hands out addresses of the default domain, which the SMTP
// server is started for.
describe('inbox addresses for exported specs', () => {
  let ctx: ApiContext;
  let host: InboxHost;
  const send = (to: string, subject: string) =>
    createTransport({ host: '127.0.0.1', port: host.port, secure: false, ignoreTLS: true }).sendMail({
      from: 'Acme <no-reply@acme.test>',
      to,
      subject,
      text: 'Your code is 771204.',
    });
  /** The mail to `address` the caller (the tenant, or the holder of `token`) may read. */
  const messagesTo = async (address: string, token?: string) =>
    (await ctx.call('GET', `/v1/inbox/messages?to=${encodeURIComponent(address)}`, undefined, token)).body.messages;

  beforeAll(async () => {
    ctx = await createApiContext('pglite');
    host = await startInboxHost(
      { HOST: '127.0.0.1', PROCTOR_INBOX_DOMAIN: DEFAULT_INBOX_DOMAIN, PROCTOR_INBOX_MAX_BYTES: 64 * 1024 },
      { db: ctx.db, blobs: ctx.deps.blobs, logger: silentLogger },
      0,
    );
  }, 60_000);
  afterAll(async () => {
    await host?.stop();
    await ctx?.close();
  });

  it('hands out a fresh address per call that takes mail at once, readable by the project only', async () => {
    const first = await ctx.call('POST', '/v1/inbox/addresses', {});
    const second = await ctx.call('POST', '/v1/inbox/addresses');
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    expect(first.body.address).toMatch(/^run-[0-9a-f]{16}@inbox\.proctor\.localhost$/);
    expect(second.body.address).not.toBe(first.body.address);
    expect(Date.parse(first.body.since)).toBeLessThanOrEqual(Date.now());

    await send(first.body.address, 'Verify your Acme account');
    const list = await messagesTo(first.body.address);
    expect(list.map((m: any) => m.subject)).toEqual(['Verify your Acme account']);
    expect(list[0].receivedAt >= first.body.since).toBe(true);
    expect((await ctx.call('GET', `/v1/inbox/messages/${list[0].id}`)).body.code).toBe('771204');
    expect(await messagesTo(first.body.address, ctx.other.token)).toEqual([]);
  });

  it("gives {{INBOX:name}} the project's fixed address: the same on every call, another for another project", async () => {
    const a = await ctx.call('POST', '/v1/inbox/addresses', { name: 'support' });
    const b = await ctx.call('POST', '/v1/inbox/addresses', { name: 'support' });
    const other = await ctx.call('POST', '/v1/inbox/addresses', { name: 'support' }, ctx.other.token);
    expect(a.status).toBe(201);
    expect(a.body.address).toMatch(/^support\.[0-9a-f]{8}@inbox\.proctor\.localhost$/);
    expect(b.body.address).toBe(a.body.address);
    expect(b.body.since >= a.body.since).toBe(true);
    expect(other.body.address).not.toBe(a.body.address);
    // Mail to one project's named inbox is that project's alone.
    await send(other.body.address, 'For Globex');
    expect(await messagesTo(other.body.address)).toEqual([]);
    expect(await messagesTo(other.body.address, ctx.other.token)).toHaveLength(1);
  });

  it('refuses a bad name, unknown fields and a missing token', async () => {
    for (const body of [
      { name: 'Support' },
      { name: '' },
      { name: 'x'.repeat(32) },
      { name: 'a b' },
      { name: 7 },
      { domain: 'example.com' },
    ]) {
      const res = await ctx.call('POST', '/v1/inbox/addresses', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(typeof res.body.message).toBe('string');
    }
    expect((await ctx.call('POST', '/v1/inbox/addresses', {}, null)).status).toBe(401);
  });
});
