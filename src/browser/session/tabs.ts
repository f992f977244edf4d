import type { Page } from 'playwright-core';
import { StepFailedError } from '../steps/actions.js';

/**
 * Whether the page asked for a new window (window.open, a target=_blank link, a form) since the call: Chromium
 * says so while the click is handled, long before Playwright has the new page under load.
 */
export async function watchWindowOpen(page: Page): Promise<{ opened(): boolean; stop(): Promise<void> }> {
  let opened = false;
  try {
    const cdp = await page.context().newCDPSession(page);
    cdp.on('Page.windowOpen', () => {
      opened = true;
    });
    await cdp.send('Page.enable');
    return { opened: () => opened, stop: () => cdp.detach().catch(() => {}) };
  } catch {
    // Not Chromium, or the page is going away: the tab count alone decides.
    return { opened: () => false, stop: async () => {} };
  }
}

/**
 * The pages of one browser context in the order they opened (closed ones keep their place), so a step can say
 * "tab 1" and mean the same popup at burn-in and at replay. The current tab is the one the next step acts on.
 */
export class Tabs {
  readonly pages: Page[];
  private selected = 0;
  private readonly onPage: (page: Page) => void;

  constructor(first: Page, opened?: (page: Page) => void) {
    this.pages = [first];
    this.onPage = (page) => {
      this.pages.push(page);
      opened?.(page);
    };
    first.context().on('page', this.onPage);
  }

  get count(): number {
    return this.pages.length;
  }

  /** The tab selected last, or, when it closed (a popup that closes itself), the newest tab still open. */
  currentIndex(): number {
    if (!this.pages[this.selected]!.isClosed()) return this.selected;
    for (let i = this.pages.length - 1; i >= 0; i--) if (!this.pages[i]!.isClosed()) return i;
    return this.selected;
  }

  current(): Page {
    return this.pages[this.currentIndex()]!;
  }

  /** The recorded tab of a step; it must be open. */
  use(index: number): Page {
    const page = this.pages[index];
    if (!page) throw new StepFailedError(`the step acts on tab ${index}, but only ${this.pages.length} tab(s) opened`);
    if (page.isClosed()) throw new StepFailedError(`the step acts on tab ${index}, which has closed`);
    this.selected = index;
    return page;
  }

  /** The open tab whose URL contains `match` or whose title does (the current one first when both match). */
  async find(match: string): Promise<number | undefined> {
    const wanted = match.toLowerCase();
    const order = [this.currentIndex(), ...this.pages.keys()];
    for (const i of order) {
      const page = this.pages[i]!;
      if (page.isClosed()) continue;
      const title = await page.title().catch(() => '');
      if (page.url().toLowerCase().includes(wanted) || title.toLowerCase().includes(wanted)) return i;
    }
    return undefined;
  }

  /** Waits for a tab opened after there were `before`; its index, or undefined when none opened in time. */
  async waitForNew(before: number, timeoutMs: number): Promise<number | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (this.pages.length <= before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    if (this.pages.length <= before) return undefined;
    const index = this.pages.length - 1;
    const page = this.pages[index]!;
    // window.open starts at about:blank and navigates after: wait for the page it opens, not the blank one
    // (a popup its opener writes itself stays blank: bounded).
    const left = () => Math.max(1, Math.min(5_000, deadline - Date.now()));
    if (page.url() === 'about:blank')
      await page
        .waitForURL((url) => url.href !== 'about:blank', { timeout: left(), waitUntil: 'commit' })
        .catch(() => {});
    await page.waitForLoadState('domcontentloaded', { timeout: left() }).catch(() => {});
    return index;
  }

  /** What the agent is told when more than one tab is open (nothing otherwise: one tab needs no words). */
  async describe(): Promise<string> {
    const open = this.pages.map((page, i) => ({ page, i })).filter(({ page }) => !page.isClosed());
    if (open.length < 2) return '';
    const current = this.currentIndex();
    const lines = await Promise.all(
      open.map(
        async ({ page, i }) =>
          `- tab ${i}${i === current ? ' (current)' : ''}: "${await page.title().catch(() => '')}" ${page.url()}`,
      ),
    );
    return `Open tabs (switch_tab by URL or title, close_tab closes the current one):\n${lines.join('\n')}`;
  }

  dispose(): void {
    this.pages[0]!.context().off('page', this.onPage);
  }
}
