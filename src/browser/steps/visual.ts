// The visual check: the page (or one element) must look as its baseline does for this environment and device preset.
// Masks paint over what changes by nature (a clock, an avatar, a live region) in both images alike.
import type { Locator, Page } from 'playwright-core';
import { z } from 'zod';
import { visualDefaults, type Step, type VisualCheck } from '../../domain/steps.js';
import { newBaselineName } from '../../ids.js';
import { resolveLocator } from '../locators.js';
import { locatorForRef, recordElement } from '../record/record.js';
import { pin } from './pointer.js';
import { StepFailedError } from './errors.js';
import { defineStepKind, elementRef, type PerformContext } from './kind.js';
import { compareScreenshots, describeDifference } from './visual-compare.js';

/** A page that no longer looks like its baseline. */
export class VisualCheckError extends StepFailedError {
  override name = 'VisualCheckError';
  override readonly kind = 'visual' as const;
}

// Rendering that does not move between two screenshots of the same page: no animation or transition mid-way, no
// blinking caret; masks in one flat colour. The viewport and scale come from the device preset of the context.
const stillShot = { animations: 'disabled', caret: 'hide', maskColor: '#FF00FF', scale: 'device' } as const;
const maxShots = 5;

/**
 * A screenshot the page holds still for: taken until two in a row are the same (as Playwright's toHaveScreenshot
 * does), so a late font, image or layout shift is not what gets compared. The last one when the page never settles.
 */
async function steadyScreenshot(page: Page, target: Locator | undefined, masks: Locator[], timeout: number) {
  const deadline = Date.now() + timeout;
  const shoot = () => {
    const options = { ...stillShot, mask: masks, timeout: Math.max(1, deadline - Date.now()) };
    return target ? target.screenshot(options) : page.screenshot(options);
  };
  let last = await shoot();
  for (let i = 1; i < maxShots && Date.now() < deadline; i++) {
    // A later shot that runs out of the step's time (a loaded machine paints slowly) leaves the last one taken, as
    // a page that never settles does: only the first shot's failure fails the step.
    const next = await shoot().catch((err: unknown) => {
      if (err instanceof Error && err.name === 'TimeoutError') return undefined;
      throw err;
    });
    if (!next) break;
    if (next.equals(last)) return next;
    last = next;
  }
  return last;
}

async function check({ page, step, locator, opts, timeout }: PerformContext): Promise<void> {
  const visual = step.visual;
  if (!visual) throw new StepFailedError(`assert_screenshot has no baseline (step: ${step.description})`);
  const baselines = opts.visual;
  // Without a baseline store nothing can be compared: the check fails rather than pass unchecked.
  if (!baselines)
    throw new StepFailedError(`visual checks cannot run here: no baseline store (step: ${step.description})`);
  const target = locator?.first();
  if (target) await target.waitFor({ state: 'visible', timeout });
  const masks = (visual.masks ?? []).map((m) => resolveLocator(page, m));
  const actual = await steadyScreenshot(page, target, masks, timeout);
  // Burn-in's own session (hovers, focus, a live view) is not how a run's fresh context renders: its verifying
  // replay, a fresh context as every run's, finds no baseline under the new name and records it.
  if (baselines.mode === 'record') return;
  const baseline = await baselines.read(step);
  // No baseline on this device in any environment (a device preset burn-in did not use): what the first run sees
  // becomes it.
  if (!baseline) return baselines.write(step, actual);
  const compared = compareScreenshots(baseline, actual, visual);
  if (compared.same) return;
  const ratio = compared.totalPixels ? compared.differingPixels / compared.totalPixels : 1;
  await baselines.differs(step, { actual, ratio, ...(compared.diff && { diff: compared.diff }) });
  throw new VisualCheckError(
    `${target ? step.locator : 'the page'} looks different from its baseline: ${describeDifference(compared, visual)} (step: ${step.description})`,
  );
}

const ratio = z.number().min(0).max(1);

export const assertScreenshot = defineStepKind({
  tool: 'assert_screenshot',
  description:
    'Assert the page (or ref) looks like its baseline screenshot; masks: refs that change by nature (clock, avatar)',
  args: z.object({
    ref: elementRef().optional(),
    masks: z.array(elementRef()).optional(),
    threshold: ratio.optional(),
  }),
  actions: ['assert_screenshot'],
  failure: 'visual',
  // Offered where a goal asks how something looks (src/llm/agent-tools.ts): the rest pay none of its tokens.
  group: 'visual',
  element: 'optional',
  example: { ref: 'list', masks: ['heading'] },
  toStep: async ({ ref, masks, threshold }, ctx) => {
    // Pinned first: recording an element reads its aria snapshot, which drops the page's refs.
    const pinned = await Promise.all((masks ?? []).map((m) => pin(ctx.page, m)));
    const element = ref ? await locatorForRef(ctx.page, ref, 'assert') : undefined;
    const masked: string[] = [];
    for (const m of pinned) masked.push(maskLocator(await recordElement(ctx.page, m)));
    const visual: VisualCheck = {
      baseline: newBaselineName(),
      ...(masked.length > 0 && { masks: masked }),
      ...(threshold !== undefined && { threshold }),
    };
    return { action: 'assert_screenshot', ...element, visual, description: ctx.description };
  },
  perform: check,
  exportStatement: (step, { el, elementOf }) =>
    `await expect(${el ? `${el}.first()` : 'page'}).toHaveScreenshot(${screenshotOptions(step, elementOf)});`,
});

/**
 * What finds a masked element later: what it shows changes by nature (a clock's time), so a locator by its text
 * would find nothing on the next run and leave it unmasked. Its role, id or attributes do not change.
 */
function maskLocator({ locator, fallbacks }: { locator: string; fallbacks?: string[] }): string {
  const all = [locator, ...(fallbacks ?? [])];
  return all.find((l) => !/getByText\(|name: /.test(l)) ?? locator;
}

/** Playwright's toHaveScreenshot options for the step: the same stillness, masks and threshold as replay. */
function screenshotOptions(step: Step, elementOf: (e: { locator: string }) => string): string {
  const v = step.visual;
  const parts = ["animations: 'disabled'", "caret: 'hide'"];
  if (v?.masks?.length) parts.push(`mask: [${v.masks.map((m) => elementOf({ locator: m })).join(', ')}]`);
  parts.push(`threshold: ${v?.threshold ?? visualDefaults.threshold}`);
  if (v?.maxDiffPixelRatio !== undefined) parts.push(`maxDiffPixelRatio: ${v.maxDiffPixelRatio}`);
  return `{ ${parts.join(', ')} }`;
}
