// The screenshot a failed run keeps: the whole page when it is of a readable length, else a band of it around
// what the run was looking at. A long page (a catalogue of 1,500 items is 39,000 px tall) made a full-page PNG of
// 7 MB that took Chromium over 10 s to paint on a busy worker: the screenshot timed out and the failure had none.
import type { Page } from 'playwright-core';
import { maskedScreenshot } from './secret-mask.js';
import { pageFunction } from '../page-function.js';

/** At most this tall: about seven screens of a laptop, the viewport in the middle of them. */
export const failureScreenshotMaxHeight = 5_000;

interface PageBox {
  width: number;
  height: number;
  scrollY: number;
  viewportHeight: number;
}

const pageBox = pageFunction<() => PageBox>(`() => {
  const root = document.documentElement;
  const body = document.body;
  return {
    width: Math.max(root.scrollWidth, body ? body.scrollWidth : 0, window.innerWidth),
    height: Math.max(root.scrollHeight, body ? body.scrollHeight : 0, window.innerHeight),
    scrollY: window.scrollY,
    viewportHeight: window.innerHeight,
  };
}`);

/** The band of a page `maxHeight` tall centred on the viewport, within the page; undefined when the page fits whole. */
export function screenshotBand(
  box: PageBox,
  maxHeight: number,
): { x: number; y: number; width: number; height: number } | undefined {
  if (box.height <= maxHeight) return undefined;
  const centred = box.scrollY + box.viewportHeight / 2 - maxHeight / 2;
  const y = Math.round(Math.min(Math.max(0, centred), box.height - maxHeight));
  return { x: 0, y, width: box.width, height: maxHeight };
}

/** The failure screenshot, secrets painted over (maskedScreenshot): the page, or its band around the viewport. */
export async function failureScreenshot(
  page: Page,
  secrets: string[],
  options: { timeout?: number; maxHeight?: number } = {},
): Promise<Buffer> {
  const box = await page.evaluate(pageBox).catch(() => undefined);
  const clip = box && screenshotBand(box, options.maxHeight ?? failureScreenshotMaxHeight);
  return maskedScreenshot(page, secrets, { fullPage: true, timeout: options.timeout, ...(clip && { clip }) });
}
