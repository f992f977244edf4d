import { describe, expect, it } from 'vitest';
import { failureScreenshotMaxHeight, screenshotBand } from '../../src/browser/quality/failure-screenshot.js';

// A failed run's screenshot: the whole page when it is no taller than the cap, else a band of the cap's height around
// the viewport, never outside the page (a long catalogue's full page was 39,000 px, 7 MB, and timed out).
describe('the band of a long page a failure screenshot shows', () => {
  const box = (height: number, scrollY: number) => ({ width: 1280, height, scrollY, viewportHeight: 720 });
  const max = failureScreenshotMaxHeight;

  it('is the whole page (no clip) up to the cap', () => {
    for (const height of [720, 3_000, max]) expect(screenshotBand(box(height, 0), max), String(height)).toBeUndefined();
  });

  it('is centred on the viewport, as tall as the cap, and within the page, wherever the page is scrolled', () => {
    for (const height of [max + 1, 12_000, 39_457])
      for (const scrollY of [0, 1_000, Math.floor(height / 2), height - 720]) {
        const band = screenshotBand(box(height, scrollY), max)!;
        const what = `${height} px scrolled to ${scrollY}`;
        expect(band, what).toMatchObject({ x: 0, width: 1280, height: max });
        expect(band.y, what).toBeGreaterThanOrEqual(0);
        expect(band.y + band.height, what).toBeLessThanOrEqual(height);
        // The viewport is inside the band.
        expect(band.y, what).toBeLessThanOrEqual(scrollY);
        expect(band.y + band.height, what).toBeGreaterThanOrEqual(scrollY + 720);
        // Centred on it unless the page's top or bottom is nearer.
        const centred = scrollY + 360 - max / 2;
        if (centred >= 0 && centred + max <= height) expect(Math.abs(band.y - centred), what).toBeLessThanOrEqual(1);
      }
  });
});
