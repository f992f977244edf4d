import { createTransport } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInboxHost, type InboxHost } from '../../src/cli/inbox.js';
import { silentLogger } from '../../src/logger.js';
import { renderMetrics } from '../../src/metrics.js';
import { createInboxAccess, deleteExpiredMail } from '../../src/services/inbox.js';
import { databaseKinds, useApiContext } from '../support/app-context.js';
import { parseSamples, sumOf } from '../support/prometheus-text.js';

const domain = 'inbox.proctor.test';

/** proctor_inbox_mails_total by outcome, as a scrape reads it. */
async function inboxCounts(): Promise<Record<string, number>> {
  const samples = parseSamples(await renderMetrics());
  const outcomes = ['stored', 'unknown_recipient', 'other_domain', 'too_large'];
  return Object.fromEntries(
    outcomes.map((outcome) => [outcome, sumOf(samples, 'proctor_inbox_mails_total', { outcome })]),
  );
}

describe.each(databaseKinds)("Proctor's inbox over SMTP and the API (%s)", (kind) => {
  const ctx = useApiContext(kind);
  let host: InboxHost;
  let address: string;
  const send = (to: string, extra: Record<string, unknown> = {}) =>
    createTransport({ host: '127.0.0.1', port: host.port, secure: false, ignoreTLS: true }).sendMail({
      from: 'Acme <no-reply@acme.test>',
      to,
      subject: 'Verify your Acme account',
      text: 'Your verification code is 482913.',
      html: '<p>Your code is <b>482913</b>.</p><a href="https://acme.test/verify?t=1">Verify</a>',
      ...extra,
    });

  beforeAll(async () => {
    host = await startInboxHost(
      { HOST: '127.0.0.1', PROCTOR_INBOX_DOMAIN: domain, PROCTOR_INBOX_MAX_BYTES: 64 * 1024 },
      { db: ctx.db, blobs: ctx.deps.blobs, logger: silentLogger },
      0,
    );
    address = await createInboxAccess(
      { db: ctx.db, blobs: ctx.deps.blobs, domain },
      ctx.tenant.projectId,
    ).newRunInbox();
  }, 60_000);
  afterAll(async () => {
    await host?.stop();
  });

  it('stores mail to a handed-out address and serves it with its bodies, code and link', async () => {
    const storedBefore = (await inboxCounts()).stored!;
    await send(address.toUpperCase());
    expect((await inboxCounts()).stored).toBe(storedBefore + 1);
    const list = await ctx.call('GET', `/v1/inbox/messages?to=${encodeURIComponent(address)}`);
    expect(list.status).toBe(200);
    expect(list.body.messages).toHaveLength(1);
    expect(list.body.messages[0]).toMatchObject({
      to: address,
      from: '"Acme" <no-reply@acme.test>',
      subject: 'Verify your Acme account',
    });
    const one = await ctx.call('GET', `/v1/inbox/messages/${list.body.messages[0].id}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      text: 'Your verification code is 482913.',
      code: '482913',
      link: 'https://acme.test/verify?t=1',
    });
    expect(one.body.html).toContain('<b>482913</b>');
    // A recorded code shape narrows the code, as replay does: another shape is none; a malformed shape is a 400.
    const shaped = (shape: string) =>
      ctx.call('GET', `/v1/inbox/messages/${list.body.messages[0].id}?codeShape=${encodeURIComponent(shape)}`);
    expect((await shaped('999999')).body.code).toBe('482913');
    expect((await shaped('AAAA-AAAA')).body).toMatchObject({ code: null, link: 'https://acme.test/verify?t=1' });
    const malformed = await shaped('XXXX-XXXX');
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toMatch(/codeShape/);
    // Another project sees none of it; a malformed id is a 400.
    expect(
      (await ctx.call('GET', `/v1/inbox/messages/${list.body.messages[0].id}`, undefined, ctx.other.token)).status,
    ).toBe(404);
    expect((await ctx.call('GET', '/v1/inbox/messages', undefined, ctx.other.token)).body.messages).toEqual([]);
    const bad = await ctx.call('GET', '/v1/inbox/messages/not-a-uuid');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/messageId/);
  });

  it('refuses other domains, unknown mailboxes and oversize mail at the SMTP level', async () => {
    const before = await inboxCounts();
    await expect(send('someone@example.com')).rejects.toThrow(/550.*relay access denied/);
    await expect(send(`run-0000000000000000@${domain}`)).rejects.toThrow(/550.*no such mailbox/);
    await expect(send(address, { text: 'x'.repeat(100 * 1024) })).rejects.toThrow(/552/);
    // The process's metrics (docs/operations.md) count each by what became of it.
    const after = await inboxCounts();
    const moved = Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v - (before[k] ?? 0)]));
    expect(moved).toEqual({ stored: 0, unknown_recipient: 1, other_domain: 1, too_large: 1 });
  });

  it('deletes mail past its seven days, bodies included', async () => {
    const { id, blob_key: blobKey } = await ctx.db
      .selectFrom('inbox_messages')
      .select(['id', 'blob_key'])
      .where('to_address', '=', address)
      .executeTakeFirstOrThrow();
    expect(await ctx.deps.blobs.stat(blobKey)).not.toBeNull();
    expect(
      await deleteExpiredMail({ db: ctx.db, blobs: ctx.deps.blobs }, new Date(Date.now() + 6 * 24 * 3600_000)),
    ).toMatchObject({ messages: 0 });
    expect(
      await deleteExpiredMail({ db: ctx.db, blobs: ctx.deps.blobs }, new Date(Date.now() + 8 * 24 * 3600_000)),
    ).toMatchObject({ messages: 1 });
    expect(await ctx.deps.blobs.stat(blobKey)).toBeNull();
    expect((await ctx.call('GET', `/v1/inbox/messages/${id}`)).status).toBe(404);
  });
});
