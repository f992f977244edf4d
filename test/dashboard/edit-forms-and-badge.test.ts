import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectAccessible } from '../support/dashboard.js';
import { expectWithinPageBudget } from '../support/page-checks.js';
import { useSignedInDashboard } from '../support/signed-in-dashboard.js';

// Issue 24: editing device presets and scenarios, the status badge's URL made from the dashboard (no terminal), and
// the quarantine rule's refusal said in the field's unit. Chromium drives the real app on Postgres; what is checked
// is what a person sees and what the API then answers.

describe('dashboard: editing presets and scenarios, the badge URL, the quarantine rule in percent', () => {
  const rig = useSignedInDashboard();
  const newPages = new Set<string>();

  /** The page passes axe; a page opened by a link (not a refused post's answer) is measured against the budget at the end. */
  const checkPage = async (page: Page, opened = true) => {
    await expectAccessible(page);
    if (opened) newPages.add(new URL(page.url()).pathname);
  };

  it('edits a device preset: a viewport the API refuses is shown at its field and changes nothing; a good edit is what the API answers', async () => {
    const page = rig.dash.page;
    const created = (
      await rig.stack.call('POST', '/v1/device-presets', {
        name: 'Phone',
        viewport: { width: 390, height: 844 },
        locale: 'de-DE',
        isMobile: true,
      })
    ).body;
    const preset = async () => (await rig.stack.call('GET', `/v1/device-presets/${created.shortId}`)).body;
    const before = await preset();
    await page.getByRole('link', { name: 'Devices' }).click();
    await page.getByRole('link', { name: 'Edit Phone' }).click();
    await checkPage(page);
    expect(await page.getByLabel('Viewport width (CSS pixels)').inputValue()).toBe('390');
    expect(await page.getByLabel('Locale').inputValue()).toBe('de-DE');
    expect(await page.getByLabel('Mobile').isChecked()).toBe(true);
    await page.getByLabel('Viewport height (CSS pixels)').fill('9000');
    await page.getByLabel('Preset name').fill('Big phone');
    await page.getByRole('button', { name: 'Save the device preset' }).click();
    await expect.poll(() => page.locator('#height-error').textContent()).toMatch(/4000/);
    expect(await page.getByLabel('Preset name').inputValue()).toBe('Big phone');
    expect(await preset()).toEqual(before);
    await checkPage(page, false);

    await page.getByLabel('Viewport height (CSS pixels)').fill('915');
    await page.getByLabel('Locale').fill('');
    await page.getByLabel('Touch').check();
    await page.getByRole('button', { name: 'Save the device preset' }).click();
    await page.waitForURL(/\/device-presets$/);
    expect(await preset()).toMatchObject({
      name: 'Big phone',
      viewport: { width: 390, height: 915 },
      locale: null,
      isMobile: true,
      hasTouch: true,
    });
    expect(
      await page
        .getByRole('row', { name: /Big phone/ })
        .getByRole('cell', { name: '390 × 915' })
        .count(),
    ).toBe(1);
  }, 60_000);

  it('edits a scenario: blank instructions are refused and change nothing; emptying the description clears it', async () => {
    const page = rig.dash.page;
    const created = (
      await rig.stack.call('POST', '/v1/scenarios', {
        name: 'Full cart',
        description: 'One mug in the cart',
        instructions: 'Add the mug to the cart',
      })
    ).body;
    const scenario = async () => (await rig.stack.call('GET', `/v1/scenarios/${created.shortId}`)).body;
    const before = await scenario();
    await page.getByRole('link', { name: 'Scenarios' }).click();
    await page.getByRole('link', { name: 'Edit Full cart' }).click();
    await checkPage(page);
    await page.getByLabel('Instructions').fill('   ');
    await page.getByRole('button', { name: 'Save the scenario' }).click();
    await expect.poll(() => page.locator('#instructions-error').textContent()).toBeTruthy();
    expect(await scenario()).toEqual(before);
    await page.getByLabel('Instructions').fill('Sign in as {{SHOP_EMAIL}}, then add two mugs to the cart');
    await page.getByLabel('Description').fill('');
    await page.getByRole('button', { name: 'Save the scenario' }).click();
    await page.waitForURL(/\/scenarios$/);
    expect(await scenario()).toMatchObject({
      name: 'Full cart',
      description: null,
      instructions: 'Sign in as {{SHOP_EMAIL}}, then add two mugs to the cart',
    });
    expect(await page.getByRole('cell', { name: /two mugs/ }).count()).toBe(1);
  }, 60_000);

  it('says a refused flake rate in percent, the unit of its box, and stores nothing', async () => {
    const page = rig.dash.page;
    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByLabel('Quarantine flaky tests automatically').check();
    for (const rate of ['0.5', '150']) {
      await page.getByLabel('At a flake rate of (percent)').fill(rate);
      // The form posts in place (htmx): wait for this answer, not the message the last one left.
      await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Save the settings' }).click(),
      ]);
      await expect
        .poll(() => page.locator('#flakeRate-error').textContent())
        .toBe('must be a percentage from 1 to 100');
      expect((await rig.stack.call('GET', '/v1/project/settings')).body.quarantine).toBeNull();
    }
    // The refusal's swap must be over before the next fill (htmx marks the swapped and settling parts), or the
    // click can land on the form it replaces. Then wait for this POST's own answer (a redirect to the saved page).
    await expect.poll(() => page.locator('.htmx-request, .htmx-swapping, .htmx-settling').count()).toBe(0);
    await page.getByLabel('At a flake rate of (percent)').fill('25');
    const [saved] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Save the settings' }).click(),
    ]);
    expect(saved.status()).toBeLessThan(400);
    await page.getByText('Saved.').waitFor();
    expect((await rig.stack.call('GET', '/v1/project/settings')).body.quarantine).toEqual({
      flakeRate: 0.25,
      minRuns: 10,
    });
  }, 60_000);

  it('sets when issues resolve and which failing URLs are no signal: an out-of-range count is refused at its box', async () => {
    const page = rig.dash.page;
    await page.goto(`${rig.dash.url}/project`);
    await checkPage(page);
    const settings = async () => (await rig.stack.call('GET', '/v1/project/settings')).body;
    const before = await settings();
    const resolveAfter = page.getByLabel(/An open issue resolves itself after this many clean runs/);
    expect(await resolveAfter.inputValue()).toBe('3');
    await resolveAfter.fill('0');
    await page
      .getByLabel('Request URLs whose failures are not signals')
      .fill('*/analytics/*\nhttps://status.example.com');
    await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Save the settings' }).click(),
    ]);
    await expect.poll(() => page.locator('#issueResolveAfterRuns-error').textContent()).toMatch(/1/);
    expect(await page.getByLabel('Request URLs whose failures are not signals').inputValue()).toBe(
      '*/analytics/*\nhttps://status.example.com',
    );
    expect(await settings()).toEqual(before);
    await resolveAfter.fill('5');
    await page.getByRole('button', { name: 'Save the settings' }).click();
    await page.getByText('Saved.').waitFor();
    expect(await settings()).toMatchObject({
      issueResolveAfterRuns: 5,
      signalIgnoreUrls: ['*/analytics/*', 'https://status.example.com'],
      quarantine: before.quarantine,
    });
  }, 60_000);

  it('makes a badge URL: shown once with its Markdown, it serves the badge; a bad label is refused; revoking it stops it', async () => {
    const page = rig.dash.page;
    const plan = (await rig.stack.call('POST', '/v1/test-plans', { name: 'Smoke', testCaseIds: [] })).body;
    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('link', { name: 'Status badge for a README' }).click();
    await checkPage(page);
    const tokens = async () =>
      Number(
        (
          await rig.stack.db
            .selectFrom('api_tokens')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('kind', '=', 'badge')
            .executeTakeFirstOrThrow()
        ).n,
      );
    await page.getByLabel('Badge label').fill('x'.repeat(65));
    await page.getByRole('button', { name: 'Make the badge URL' }).click();
    await expect.poll(() => page.locator('#label-error').textContent()).toMatch(/64/);
    expect(await tokens()).toBe(0);

    await page.getByLabel('Token name').fill('Shop README');
    await page.getByLabel('Runs shown').selectOption({ label: 'Plan Smoke' });
    await page.getByLabel('Badge label').fill('e2e (shop)');
    await page.getByRole('button', { name: 'Make the badge URL' }).click();
    await page.getByRole('heading', { name: 'Your badge URL' }).waitFor();
    await checkPage(page);
    const url = await page.getByLabel('Badge URL', { exact: true }).inputValue();
    expect(url).toMatch(
      new RegExp(
        `^http://127\\.0\\.0\\.1:3000/v1/badge\\.svg\\?token=prb_[^&]+&testPlanShortId=${plan.shortId}&label=e2e\\+%28shop%29$`,
      ),
    );
    expect(await page.getByLabel('Markdown for a README').inputValue()).toBe(`![e2e (shop)](${url})`);
    // "Copy the Markdown" puts it on the clipboard: pasted into a box, it is the Markdown.
    await rig.dash.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: rig.dash.url });
    await page.getByRole('button', { name: 'Copy the Markdown' }).click();
    await page.getByText('Copied.').waitFor();
    await page.getByLabel('Token name').fill('');
    await page.getByLabel('Token name').press('Control+V');
    expect(await page.getByLabel('Token name').inputValue()).toBe(`![e2e (shop)](${url})`);
    expect(await tokens()).toBe(1);
    // The URL works as a README would fetch it: no session, only its token.
    const badge = await rig.stack.app.request(url.replace('http://127.0.0.1:3000', ''));
    expect(badge.status).toBe(200);
    const svg = await badge.text();
    expect(svg).toContain('e2e (shop)');
    expect(svg).toContain('no runs');
    // Listed without the token; a reload no longer shows it.
    const token = new URL(url).searchParams.get('token')!;
    await page.goto(`${rig.dash.url}/project/badge`);
    expect(await page.getByRole('row', { name: /Shop README/ }).textContent()).toContain(token.slice(0, 8));
    expect(await page.content()).not.toContain(token);

    await page.getByRole('button', { name: 'Revoke Shop README' }).click();
    await page.getByText('No badge token yet.').waitFor();
    expect((await rig.stack.app.request(url.replace('http://127.0.0.1:3000', ''))).status).toBe(401);
  }, 60_000);

  it("deletes a remote tunnel from the tunnels page; another project's session gets 404 and the tunnel stays", async () => {
    const page = rig.dash.page;
    const tunnels = async () =>
      (await rig.stack.call('GET', '/v1/remote-tunnels')).body.tunnels.map((t: { runnerId: string }) => t.runnerId);
    const kept = (await rig.stack.call('POST', '/v1/remote-tunnels', { ports: [{ localPort: 5173 }] })).body
      .runnerId as string;
    const gone = (await rig.stack.call('POST', '/v1/remote-tunnels', { ports: [{ localPort: 4000 }] })).body
      .runnerId as string;
    const elsewhere = await rig.dash.signInElsewhere(rig.other.token);
    await elsewhere.goto(`${rig.dash.url}/tunnels`);
    expect(await elsewhere.getByText('No tunnels.').count()).toBe(1);
    const csrf = (await elsewhere.locator('input[name=_csrf]').first().getAttribute('value'))!;
    expect(
      (await elsewhere.request.post(`${rig.dash.url}/tunnels/${gone}/delete`, { form: { _csrf: csrf } })).status(),
    ).toBe(404);
    await elsewhere.context().close();
    expect((await tunnels()).sort()).toEqual([kept, gone].sort());

    await page.getByRole('link', { name: 'Tunnels' }).click();
    await checkPage(page);
    await page.getByRole('button', { name: `Delete ${gone}` }).click();
    await page.waitForURL(/\/tunnels$/);
    expect(await tunnels()).toEqual([kept]);
    expect(await page.getByRole('row', { name: new RegExp(gone) }).count()).toBe(0);
    expect(await page.getByRole('row', { name: new RegExp(kept) }).count()).toBe(1);
  }, 60_000);

  it("answers another project's session with 404 for the edit pages and the revoke, and changes nothing", async () => {
    const preset = (await rig.stack.call('GET', '/v1/device-presets')).body.devicePresets[0];
    const scenario = (await rig.stack.call('GET', '/v1/scenarios')).body.scenarios[0];
    await rig.dash.page.goto(`${rig.dash.url}/project/badge`);
    await rig.dash.page.getByRole('button', { name: 'Make the badge URL' }).click();
    await rig.dash.page.getByRole('heading', { name: 'Your badge URL' }).waitFor();
    const badgeToken = await rig.stack.db
      .selectFrom('api_tokens')
      .select('id')
      .where('kind', '=', 'badge')
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    const elsewhere = await rig.dash.signInElsewhere(rig.other.token);
    for (const path of [`/device-presets/${preset.shortId}/edit`, `/scenarios/${scenario.shortId}/edit`]) {
      expect((await elsewhere.goto(`${rig.dash.url}${path}`))!.status(), path).toBe(404);
    }
    await elsewhere.goto(`${rig.dash.url}/project/badge`);
    const csrf = (await elsewhere.locator('input[name=_csrf]').first().getAttribute('value'))!;
    const form = { _csrf: csrf, name: 'Stolen', instructions: 'x', width: '400', height: '400' };
    for (const path of [
      `/device-presets/${preset.shortId}`,
      `/scenarios/${scenario.shortId}`,
      `/project/badge/tokens/${badgeToken.id}/revoke`,
      `/project/badge/tokens/${rig.other.tokenId}/revoke`,
    ]) {
      expect((await elsewhere.request.post(`${rig.dash.url}${path}`, { form })).status(), path).toBe(404);
    }
    // Not even one's own API token is revoked through the badge form.
    const own = await elsewhere.request.post(`${rig.dash.url}/project/badge/tokens/${rig.other.tokenId}/revoke`, {
      form,
    });
    expect(own.status()).toBe(404);
    expect((await rig.stack.call('GET', `/v1/device-presets/${preset.shortId}`)).body).toEqual(preset);
    expect((await rig.stack.call('GET', `/v1/scenarios/${scenario.shortId}`)).body).toEqual(scenario);
    expect(
      (
        await rig.stack.db
          .selectFrom('api_tokens')
          .select('revoked_at')
          .where('id', '=', badgeToken.id)
          .executeTakeFirstOrThrow()
      ).revoked_at,
    ).toBeNull();
    await elsewhere.context().close();
  });

  it('makes a badge URL without JavaScript, and keeps every new page within the size budget', async () => {
    const context = await rig.dash.browser.newContext({
      javaScriptEnabled: false,
      storageState: await rig.dash.context.storageState(),
    });
    const page = await context.newPage();
    await page.goto(`${rig.dash.url}/project/badge`);
    const [made] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Make the badge URL' }).click(),
    ]);
    expect(made.status()).toBe(200);
    expect(made.headers()['cache-control']).toBe('no-store');
    expect(await page.getByLabel('Badge URL', { exact: true }).inputValue()).toMatch(/\/v1\/badge\.svg\?token=prb_/);
    // Without a script there is nothing to click that would not work: the Copy buttons stay hidden.
    expect(await page.getByRole('button', { name: 'Copy the Markdown' }).count()).toBe(0);
    await context.close();

    await expectWithinPageBudget(rig.dash, newPages);
    expect(newPages.size).toBeGreaterThanOrEqual(3);
  });
});
