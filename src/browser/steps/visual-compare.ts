// How two screenshots compare: pixelmatch over the decoded PNGs, anti-aliased pixels ignored (they differ between
// runs of the same page more than anything a person would see), and a diff image a reader can look at.
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import { visualDefaults, type VisualCheck } from '../../domain/steps.js';

export interface VisualComparison {
  /** Whether the differing pixels stay within what the step allows. */
  same: boolean;
  differingPixels: number;
  totalPixels: number;
  /** The baseline faded, differing pixels in red; absent when the images have other sizes. */
  diff?: Buffer;
  /** Set when the sizes differ: nothing is compared then. */
  sizeChange?: { from: string; to: string };
}

export function compareScreenshots(
  baseline: Buffer,
  actual: Buffer,
  check: Pick<VisualCheck, 'threshold' | 'maxDiffPixelRatio'>,
): VisualComparison {
  const a = PNG.sync.read(baseline);
  const b = PNG.sync.read(actual);
  const totalPixels = b.width * b.height;
  if (a.width !== b.width || a.height !== b.height) {
    return {
      same: false,
      differingPixels: totalPixels,
      totalPixels,
      sizeChange: { from: `${a.width}×${a.height}`, to: `${b.width}×${b.height}` },
    };
  }
  const out = new PNG({ width: a.width, height: a.height });
  const differingPixels = pixelmatch(a.data, b.data, out.data, a.width, a.height, {
    threshold: check.threshold ?? visualDefaults.threshold,
  });
  const allowed = (check.maxDiffPixelRatio ?? visualDefaults.maxDiffPixelRatio) * totalPixels;
  return { same: differingPixels <= allowed, differingPixels, totalPixels, diff: PNG.sync.write(out) };
}

/** The comparison in a reader's words: `1,234 of 921,600 pixels differ (0.13%; allowed 0%)`. */
export function describeDifference(c: VisualComparison, check: Pick<VisualCheck, 'maxDiffPixelRatio'>): string {
  if (c.sizeChange) return `the screenshot is ${c.sizeChange.to}, its baseline ${c.sizeChange.from}`;
  const pct = (r: number) => `${Number((r * 100).toPrecision(2))}%`;
  const allowed = check.maxDiffPixelRatio ?? visualDefaults.maxDiffPixelRatio;
  return `${c.differingPixels.toLocaleString('en')} of ${c.totalPixels.toLocaleString('en')} pixels differ (${pct(c.differingPixels / c.totalPixels)}; allowed ${pct(allowed)})`;
}
