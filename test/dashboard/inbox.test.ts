import { createTransport } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInboxHost, type InboxHost } from '../../src/cli/inbox.js';
import { DEFAULT_INBOX_DOMAIN } from '../../src/config.js';
import { silentLogger } from '../../src/logger.js';
import type { ApiContext } from '../support/app-context.js';
import { serveAppForTests } from '../support/served-app.js';
import { expectAccessible, openDashboard, type DashboardBrowser } from '../support/dashboard.js';

// The dashboard's inbox pages in the project's Chromium (every non-local request refused): mail arrives over real
// SMTP at addresses handed out by the API, and a person reads it. A mail's HTML is a stranger's: it must never run.

const hostile =
  '<p>Your code is <b>550119</b>.</p><script>document.title = "pwned"; alert(1)</script><img src="x" onerror="document.title = \'pwned\'"><a href="https://acme.test/verify?t=9">Verify</a>';

describe('dashboard: inbox', () => {
  let ctx: ApiContext;
  let host: InboxHost;
  let dash: DashboardBrowser;
  const addresses: Record<string, string> = {};
  const ids: Record<string, string> = {};

  const send = (to: string, subject: string, body: { text?: string; html?: string }) =>
    createTransport({ host: '127.0.0.1', port: host.port, secure: false, ignoreTLS: true }).sendMail({
      from: 'Acme Accounts <no-reply@acme.test>',
      to,
      subject,
      ...body,
    });
  const address = async (token: string, name?: string) =>
    (await ctx.call('POST', '/v1/inbox/addresses', name ? { name } : {}, token)).body.address as string;

  const served = serveAppForTests('postgres', openDashboard);
  beforeAll(async () => {
    ({ api: ctx, front: dash } = served);
    host = await startInboxHost(
      { HOST: '127.0.0.1', PROCTOR_INBOX_DOMAIN: DEFAULT_INBOX_DOMAIN, PROCTOR_INBOX_MAX_BYTES: 64 * 1024 },
      { db: ctx.db, blobs: ctx.deps.blobs, logger: silentLogger },
      0,
    );
    addresses.run = await address(ctx.tenant.token);
    addresses.named = await address(ctx.tenant.token, 'support');
    addresses.theirs = await address(ctx.other.token);
    await send(addresses.run, 'Verify your Acme account', { text: 'Your verification code is 482913.' });
    await send(addresses.named, 'Weekly digest', { text: 'Nothing to do here.' });
    await send(addresses.run, 'Your Acme sign-in link', {
      text: 'Sign in: https://acme.test/verify?t=9 (code 550119)',
      html: hostile,
    });
    await send(addresses.theirs, 'Globex secret', { text: 'Their code is 111222.' });
    const list = (await ctx.call('GET', '/v1/inbox/messages')).body.messages as Array<{ id: string; subject: string }>;
    for (const m of list) ids[m.subject] = m.id;
    ids.theirs = (await ctx.call('GET', '/v1/inbox/messages', undefined, ctx.other.token)).body.messages[0].id;
    await dash.signIn(ctx.tenant.token);
  }, 90_000);
  afterAll(async () => {
    await host?.stop();
  });

  it("lists the project's mail newest first with what a step would find, from the menu; filters by address", async () => {
    const { page } = dash;
    await page.goto(`${dash.url}/runs`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Inbox' }).click();
    await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor();
    const rows = page.locator('tbody tr');
    const cells = async () =>
      Promise.all(
        (await rows.all()).map(async (row) => (await row.locator('td').allTextContents()).map((t) => t.trim())),
      );
    const table = await cells();
    expect(table.map((r) => r[0])).toEqual(['Your Acme sign-in link', 'Weekly digest', 'Verify your Acme account']);
    expect(table[0]).toEqual([
      'Your Acme sign-in link',
      addresses.run,
      '"Acme Accounts" <no-reply@acme.test>',
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/),
      'code 550119, a link',
    ]);
    expect(table[1]![4]).toBe('nothing');
    expect(table[2]![4]).toBe('code 482913');
    expect(await page.textContent('main')).not.toContain('Globex');

    await page.getByRole('link', { name: addresses.named }).click();
    await page.waitForURL(/\/inbox\?to=/);
    expect((await cells()).map((r) => r[0])).toEqual(['Weekly digest']);
    await expect.poll(() => page.getByLabel('To').inputValue()).toBe(addresses.named);
  });

  it('shows one message: text body, code and link, and the HTML only as inert source text', async () => {
    const { page } = dash;
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(`${dash.url}/inbox`);
    await page.getByRole('link', { name: 'Your Acme sign-in link' }).click();
    await page.getByRole('heading', { name: 'Your Acme sign-in link', level: 1 }).waitFor();
    const facts = await page.locator('dl.facts').textContent();
    expect(facts).toContain('550119');
    expect(facts).toContain('https://acme.test/verify?t=9');
    await page.getByText('HTML source (shown as text, never rendered)').click();
    await expect.poll(() => page.locator('pre.mail-body').last().textContent()).toBe(hostile);
    // Nothing of the mail ran or rendered: no alert, the title is the page's, no image or script from it.
    expect(dialogs).toEqual([]);
    expect(await page.title()).toBe('Mail: Your Acme sign-in link · Proctor');
    expect(await page.locator('main img, main script, main b').count()).toBe(0);
    expect(await page.locator('pre.mail-body').first().textContent()).toBe(
      'Sign in: https://acme.test/verify?t=9 (code 550119)',
    );

    await page.goto(`${dash.url}/inbox/${ids['Verify your Acme account']}`);
    expect((await page.locator('pre.mail-body').first().textContent())?.trim()).toBe(
      'Your verification code is 482913.',
    );
    expect(await page.getByText('The mail has no HTML part.').count()).toBe(1);
  });

  it("answers another project's message and a made-up id with the same 404", async () => {
    for (const id of [ids.theirs!, '00000000-0000-4000-8000-000000000000', 'not-an-id']) {
      const response = await dash.page.goto(`${dash.url}/inbox/${id}`);
      expect(response!.status(), id).toBe(404);
      expect(await dash.page.textContent('main')).toContain('This message does not exist in this project.');
    }
  });

  it('both pages pass axe-core and load in under 50 KB of HTML and JavaScript', async () => {
    for (const path of ['/inbox', `/inbox/${ids['Your Acme sign-in link']}`]) {
      await dash.page.goto(`${dash.url}${path}`);
      await expectAccessible(dash.page);
      const bytes = await dash.transferredBytes(path);
      expect(bytes.total, `${path}: ${JSON.stringify(bytes)}`).toBeLessThan(50_000);
      expect(bytes.consoleErrors).toEqual([]);
      console.log(`${path}: ${bytes.total} bytes of HTML and JavaScript`);
    }
    expect(dash.blocked).toEqual([]);
  });
});
