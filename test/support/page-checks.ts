import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { DashboardBrowser } from './dashboard.js';

// What every dashboard page is checked for, the same way in each test that adds one: its size as a visitor's browser
// fetches it, and how it holds up at a desktop's and a phone's screen size.

/** What one dashboard page may cost a visitor: its HTML and JavaScript as transferred, headers included. */
export const pageBudgetBytes = 50 * 1024;

/**
 * Each page opened fresh (signed in as `dash` is) transfers under the budget and more than 1000 bytes (less is no
 * rendered page), with no console error (a script or style the Content-Security-Policy refused). Prints the sizes.
 */
export async function expectWithinPageBudget(dash: DashboardBrowser, paths: Iterable<string>): Promise<void> {
  const sizes: Record<string, number> = {};
  for (const path of paths) {
    const measured = await dash.transferredBytes(path);
    expect(measured.consoleErrors, path).toEqual([]);
    sizes[path] = measured.total;
  }
  console.log('transferred HTML+JS bytes per page', sizes);
  for (const [path, bytes] of Object.entries(sizes)) {
    expect(bytes, path).toBeGreaterThan(1000);
    expect(bytes, path).toBeLessThan(pageBudgetBytes);
  }
}

/** The screen sizes every dashboard page is checked at: a desktop, and a phone (touch, 390 px wide). */
export const screenSizes = [
  { label: '1280x800', viewport: { width: 1280, height: 800 }, phone: false },
  { label: '390x844', viewport: { width: 390, height: 844 }, phone: true },
] as const;

export type ScreenSize = (typeof screenSizes)[number];

/** Runs `check` at each screen size on a page of its own, signed in as `dash` is; the page is closed after. */
export async function atEachScreenSize(
  dash: DashboardBrowser,
  check: (page: Page, size: ScreenSize) => Promise<void>,
): Promise<void> {
  for (const size of screenSizes) {
    const page = await dash.view({ viewport: size.viewport, isMobile: size.phone, hasTouch: size.phone });
    try {
      await check(page, size);
    } finally {
      await page.context().close();
    }
  }
}
