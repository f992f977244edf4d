import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { followScreencast, startScreencast, type FollowedScreencast } from '../../src/browser/session/screencast.js';
import { useServedPage } from '../support/served-page.js';

// The live view's screencast in real Chromium, where a tab can close at any moment: a flow that opens a popup and
// closes it at once must neither throw nor stop the live view from following the tabs after it (a full run once
// failed on an unhandled `Page.startScreencast: Not attached to an active page`). The page repaints every 50 ms (a
// changing text, not the title, which paints nothing): Chromium sends a frame only when it paints.
describe('screencast of tabs that close', () => {
  const served = useServedPage(
    '<!doctype html><title>Live</title><h1>Live</h1><p id=t></p><script>setInterval(() => document.getElementById("t").textContent = Date.now(), 50)</script>',
  );

  /** A context with its first tab on the served page, followed by a screencast that counts each tab's frames. */
  async function followFromFirstTab(
    test: (context: BrowserContext, live: FollowedScreencast, framesOf: Map<Page, number>) => Promise<void>,
    opts: { paused?: boolean } = {},
  ) {
    const context = await served.browser.newContext();
    try {
      const first = await context.newPage();
      await first.goto(served.base);
      const framesOf = new Map<Page, number>();
      const live = await followScreencast(
        context,
        first,
        (_jpeg, page) => framesOf.set(page, (framesOf.get(page) ?? 0) + 1),
        opts,
      );
      await test(context, live, framesOf);
      await live.stop();
    } finally {
      await context.close();
    }
  }

  it('starting on a page that already closed gives a stop that does nothing, and throws nothing', async () => {
    const context = await served.browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(served.base);
      const session = await context.newCDPSession(page);
      await page.close();
      await expect(session.send('Page.startScreencast', { format: 'jpeg' })).rejects.toThrow();
      const stop = await startScreencast(page, () => {});
      await expect(stop()).resolves.toBeUndefined();
    } finally {
      await context.close();
    }
  });

  it('follows tabs opened and closed at once, then shows each next tab that stays', () =>
    followFromFirstTab(async (context, live, framesOf) => {
      for (let i = 0; i < 5; i++) {
        const popup = await context.newPage();
        void popup.close();
      }
      // A tab that stays, five times: a fresh tab could refuse the screencast's start until it navigated (3 runs
      // in 10 showed no frame of it), so each must show frames.
      for (let i = 0; i < 5; i++) {
        const stays = await context.newPage();
        await stays.goto(served.base);
        await expect
          .poll(() => live.current() === stays && (framesOf.get(stays) ?? 0) > 0, { timeout: 15_000 })
          .toBe(true);
      }
    }));

  it('paused, Chromium sends no frame; resumed, the tab the flow moved to meanwhile is cast; paused again, none', () =>
    followFromFirstTab(
      async (context, live, framesOf) => {
        const second = await context.newPage();
        await second.goto(served.base);
        // Both tabs repaint every 50 ms: a second is about 20 frames if anything were cast.
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        expect([...framesOf.values()]).toEqual([]);
        expect(live.current()).toBe(second);

        live.setActive(true);
        await expect.poll(() => framesOf.get(second) ?? 0, { timeout: 15_000 }).toBeGreaterThan(3);
        expect(framesOf.size).toBe(1);

        live.setActive(false);
        live.setActive(true);
        live.setActive(false);
        // The last request wins; what was already on its way may still land.
        await new Promise((resolve) => setTimeout(resolve, 300));
        const stopped = framesOf.get(second);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        expect(framesOf.get(second)).toBe(stopped);
      },
      { paused: true },
    ));
});
