import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectAccessible } from '../support/dashboard.js';
import { expectWithinPageBudget } from '../support/page-checks.js';
import { useSignedInDashboard } from '../support/signed-in-dashboard.js';

// Issue 24: an environment's extra headers and cookies (the auth toolkit's access) set in the dashboard, in Chromium
// against the real app and Postgres. A secret header is typed once and never comes back; a refused row changes
// nothing; what is saved is what the API then answers.

const bypass = 'bypass-secret-5f7e21';

describe('dashboard: environment headers and cookies', () => {
  let app = '';
  let env = '';
  const rig = useSignedInDashboard({
    async beforeSignIn({ stack }) {
      app = (await stack.call('POST', '/v1/applications', { name: 'Shop' })).body.shortId;
      env = (
        await stack.call('POST', `/v1/applications/${app}/environments`, {
          name: 'Staging',
          url: 'https://staging.shop.example/login',
        })
      ).body.shortId;
    },
  });

  const access = async () => (await rig.stack.call('GET', `/v1/applications/${app}/environments/${env}`)).body.access;
  const editPage = async (page: Page) => {
    await page.goto(`${rig.dash.url}/applications`);
    await page
      .getByRole('row', { name: /Staging/ })
      .getByRole('link', { name: 'Edit' })
      .click();
    await page.getByRole('heading', { level: 1, name: /Environment Staging/ }).waitFor();
  };
  const save = async (page: Page) => {
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Save the environment' }).click(),
    ]);
    return answer;
  };

  it('adds a secret header, a plain header and a cookie; the secret is not shown again', async () => {
    const page = rig.dash.page;
    await editPage(page);
    await expectAccessible(page);
    await page.getByLabel('Header 1 name').fill('x-vercel-protection-bypass');
    await page.getByLabel('Header 1 value').fill(bypass);
    await page.getByLabel('Header 1 is secret (write-only)').check();
    await page.getByLabel('Header 2 name').fill('x-team');
    await page.getByLabel('Header 2 value').fill('qa');
    await page.getByLabel('Cookie 1 name').fill('consent');
    await page.getByLabel('Cookie 1 value').fill('yes');
    await save(page);
    await page.waitForURL(/\/applications$/);
    expect(await access()).toMatchObject({
      headers: [
        { name: 'x-vercel-protection-bypass', value: null, isSecret: true },
        { name: 'x-team', value: 'qa', isSecret: false },
      ],
      cookies: [{ name: 'consent', value: 'yes', isSecret: false }],
    });

    await editPage(page);
    await expectAccessible(page);
    expect(await page.getByLabel('Header 1 value').inputValue()).toBe('');
    expect(await page.getByLabel('Header 1 value').getAttribute('type')).toBe('password');
    expect(await page.getByLabel('Header 2 value').inputValue()).toBe('qa');
    expect(await page.getByLabel('Cookie 1 value').inputValue()).toBe('yes');
    expect(await page.content()).not.toContain(bypass);
  }, 60_000);

  it('refuses a header Chromium owns, a malformed name and a new header without a value, at the list, changing nothing', async () => {
    const page = rig.dash.page;
    const before = await access();
    for (const [name, value, field, message] of [
      ['Host', 'evil.example', '#headers-error', /cannot be set per environment/],
      ['bad name', 'x', '#headers-2-name-error', /header name/],
      ['x-new', '', '#headers-error', /needs a value/],
    ] as const) {
      await editPage(page);
      await page.getByLabel('Header 1 value').fill(bypass);
      await page.getByLabel('Header 3 name').fill(name);
      await page.getByLabel('Header 3 value').fill(value);
      const refused = await save(page);
      expect(await refused.text()).not.toContain(bypass);
      await expect.poll(() => page.locator(field).textContent(), { message: name }).toMatch(message);
      expect(await page.getByLabel('Header 3 name').inputValue()).toBe(name);
      expect(await page.getByLabel('Header 1 value').inputValue()).toBe('');
      expect(await access()).toEqual(before);
    }
    await expectAccessible(page);
  }, 60_000);

  it('keeps a secret header secret when its box is left empty and its box unticked; an emptied name removes a header', async () => {
    const page = rig.dash.page;
    await editPage(page);
    await page.getByLabel('Header 1 is secret (write-only)').uncheck();
    await page.getByLabel('Header 2 name').fill('');
    await page.getByLabel('Cookie 1 value').fill('no');
    await save(page);
    await page.waitForURL(/\/applications$/);
    expect(await access()).toMatchObject({
      headers: [{ name: 'x-vercel-protection-bypass', value: null, isSecret: true }],
      cookies: [{ name: 'consent', value: 'no', isSecret: false }],
    });
  }, 60_000);

  it('never sent the secret back; the environment page stays within the size budget', async () => {
    const texts = await Promise.all(rig.answers);
    expect(texts.length).toBeGreaterThan(8);
    expect(texts.filter((t) => t.includes(bypass))).toEqual([]);
    await expectWithinPageBudget(rig.dash, [`/applications/${app}/environments/${env}/edit`]);
    expect(rig.dash.blocked).toEqual([]);
  });
});
