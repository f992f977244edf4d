import { mkdirSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { navItems } from '../../src/web/nav.js';
import type { ApiContext } from '../support/app-context.js';
import { serveAppForTests } from '../support/served-app.js';
import { expectAccessible, openDashboard, type DashboardBrowser } from '../support/dashboard.js';

// Issue 36, part 1: the menu grouped by what a person does, the page they are on marked, usable without
// JavaScript on a desktop and on a phone (390 px wide), where it folds behind a "Menu" link.

const shots = 'test-results/dashboard';
const desktop = { width: 1280, height: 800 };
const phone = { width: 390, height: 844 };

/** Each group of the main menu as a person reads it: its label and its links' names, and the link marked current. */
async function menu(page: Page) {
  const nav = page.getByRole('navigation', { name: 'Main' });
  const groups = await nav.getByRole('list').evaluateAll((lists) =>
    lists.map((ul) => ({
      label: document.getElementById(ul.getAttribute('aria-labelledby') ?? '')?.textContent ?? '',
      links: Array.from(ul.querySelectorAll('a')).map((a) => a.textContent ?? ''),
    })),
  );
  const current = await nav.locator('a[aria-current="page"]').allTextContents();
  return { groups, current };
}

describe('dashboard: grouped navigation', () => {
  let ctx: ApiContext;
  let dash: DashboardBrowser;

  const served = serveAppForTests('postgres', openDashboard);
  beforeAll(async () => {
    ({ api: ctx, front: dash } = served);
    await dash.signIn(ctx.tenant.token);
    mkdirSync(shots, { recursive: true });
  }, 60_000);

  it('groups the menu into test, review, set up and project, and marks the page one is on, without JavaScript', async () => {
    const page = await dash.view({ viewport: desktop, javaScriptEnabled: false });
    const expected = [
      { label: 'Test', links: ['Test cases', 'Test plans', 'Runs', 'Compare runs'] },
      { label: 'Review', links: ['Change reviews', 'Conversations', 'Issues'] },
      {
        label: 'Set up',
        links: ['Get started', 'Applications', 'Configs', 'Devices', 'Scenarios', 'Files', 'Inbox', 'Tunnels', 'Git'],
      },
      { label: 'Project', links: ['Settings', 'LLM usage'] },
    ];
    // Every entry, followed as a plain link, opens its page with that entry (and only it) marked current.
    for (const item of navItems) {
      await page.goto(`${dash.url}/runs`);
      const nav = page.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: item.label, exact: true }).click();
      await page.waitForURL(`${dash.url}${item.path}`);
      const seen = await menu(page);
      expect(seen.groups, item.path).toEqual(expected);
      expect(seen.current, item.path).toEqual([item.label]);
      expect(await page.getByRole('link', { name: /^Menu/ }).isVisible()).toBe(false);
    }
    await page.context().close();
    // axe runs in the page: checked with JavaScript on, at the same size.
    const scripted = await dash.view({ viewport: desktop });
    await scripted.goto(`${dash.url}/runs`);
    await expectAccessible(scripted);
    await scripted.screenshot({ path: `${shots}/runs-1280x800.png` });
    await scripted.context().close();
  }, 180_000);

  it('folds behind a Menu link on a 390 px phone, which opens it without JavaScript', async () => {
    const page = await dash.view({ viewport: phone, javaScriptEnabled: false, isMobile: true, hasTouch: true });
    await page.goto(`${dash.url}/test-plans`);
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.isVisible()).toBe(false);
    const open = page.getByRole('link', { name: 'Menu: Test plans' });
    await page.screenshot({ path: `${shots}/test-plans-390x844.png` });
    await open.click();
    await nav.waitFor({ state: 'visible' });
    expect((await menu(page)).current).toEqual(['Test plans']);
    // Nothing is wider than the phone: every link of the open menu can be tapped where it is.
    // Against the phone's width, not innerWidth: a mobile browser widens its layout viewport to fit wide content.
    const width = await page.evaluate(() => Math.max(document.documentElement.scrollWidth, window.innerWidth));
    expect(width).toBeLessThanOrEqual(phone.width);
    await page.screenshot({ path: `${shots}/menu-open-390x844.png` });
    await nav.getByRole('link', { name: 'Issues' }).click();
    await page.waitForURL(`${dash.url}/issues`);
    expect(await nav.isVisible()).toBe(false);
    expect(await page.getByRole('link', { name: 'Menu: Issues' }).isVisible()).toBe(true);
    await page.getByRole('link', { name: 'Menu: Issues' }).click();
    await nav.getByRole('link', { name: 'Close the menu' }).click();
    await nav.waitFor({ state: 'hidden' });
    await page.context().close();
    // axe runs in the page: the folded and the open menu, checked with JavaScript on at the phone's size.
    const scripted = await dash.view({ viewport: phone, isMobile: true, hasTouch: true });
    await scripted.goto(`${dash.url}/test-plans`);
    await expectAccessible(scripted);
    await scripted.goto(`${dash.url}/test-plans#menu`);
    await scripted.getByRole('navigation', { name: 'Main' }).waitFor({ state: 'visible' });
    await expectAccessible(scripted);
    await scripted.context().close();
    expect(dash.blocked).toEqual([]);
  }, 120_000);
});
