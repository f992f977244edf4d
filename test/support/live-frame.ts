import type { Page } from 'playwright-core';

/**
 * Resolves when the live view on `page` shows a decoded frame of the remote screen (fails after 30 s without one);
 * returns when, as Date.now().
 */
export async function firstLiveFrame(page: Page): Promise<number> {
  // A function, not a string: the dashboard's Content-Security-Policy refuses eval.
  await page.waitForFunction(
    () => {
      const img = document.getElementById('live-frame') as HTMLImageElement | null;
      return !!img && !img.hidden && img.complete && img.naturalWidth > 0;
    },
    undefined,
    { polling: 'raf', timeout: 30_000 },
  );
  return Date.now();
}
