// The scroll step: an element into view, or a container by a distance or until a text shows (a lazy list).
import type { Locator } from 'playwright-core';
import { z } from 'zod';
import { quote } from '../../domain/locators.js';
import { scrollDirections, type ScrollSpec } from '../../domain/steps.js';
import { pageFunction } from '../page-function.js';
import { locatorForRef } from '../record/record.js';
import { defineStepKind, elementRef } from './kind.js';

/**
 * How long an `untilText` scroll waits at the container's end for a lazy list to load more (or the text to show)
 * before it fails: the end is where the text could not be, not a number of scrolls.
 */
export const scrollEndWaitMs = 1_000;

/**
 * The least time an `untilText` scroll has to find its text, in replay and in the exported spec alike. Each scroll
 * waits for a frame, so a long list takes many round trips: a 300-row list box needed over 5 s to reach row 250 on a
 * busy machine, and a step's own timeout (a few seconds) failed a list that was still moving towards the text.
 */
export const scrollUntilTextMs = 15_000;

export const scroll = defineStepKind({
  tool: 'scroll',
  description: 'Scroll ref into view, or inside it',
  args: z.object({
    ref: elementRef(),
    direction: z
      .enum(scrollDirections, { error: `scroll direction must be one of ${scrollDirections.join(', ')}` })
      .optional(),
    untilText: z.string().optional(),
  }),
  actions: ['scroll'],
  element: 'required',
  example: { ref: 'list', direction: 'down', untilText: 'Row 40' },
  toStep: async ({ ref, direction, untilText }, { page, description }) => {
    const element = await locatorForRef(page, ref);
    if (direction === undefined) return { action: 'scroll', ...element, description };
    const spec: ScrollSpec = { direction, ...(untilText && { untilText }) };
    return { action: 'scroll', ...element, scroll: spec, description };
  },
  perform: async ({ step, element, timeout }) => {
    if (step.scroll) await scrollContainer(element(), step.scroll, timeout);
    else await element().scrollIntoViewIfNeeded({ timeout });
  },
  exportStatement: (step, { el }) => {
    if (!step.scroll) return `await ${el}.scrollIntoViewIfNeeded();`;
    const { x, y } = directions[step.scroll.direction];
    const size = x !== 0 ? 'e.clientWidth' : 'e.clientHeight';
    const distance = step.scroll.pixels ?? `${size} * 0.8`;
    if (!step.scroll.untilText)
      return `await ${el}.evaluate((e) => e.scrollBy(${x} * ${distance}, ${y} * ${distance}));`;
    // As replay does (scrollContainer): scroll until the text shows; at the container's end give a lazy list
    // scrollEndWaitMs to load more, and fail if it then cannot move. No fixed number of scrolls.
    const moved = `${el}.evaluate(${scrollOnceSource}, { x: ${x}, y: ${y}, pixels: ${step.scroll.pixels ?? null} })`;
    const wanted = `${el}.getByText(${quote(step.scroll.untilText)}).first()`;
    const missing = quote(`"${step.scroll.untilText}" did not appear while scrolling ${step.scroll.direction}`);
    return `for (const end = Date.now() + ${scrollUntilTextMs}; !(await ${wanted}.isVisible()); ) { if (Date.now() > end) throw new Error(${missing}); if (await ${moved}) continue; await ${wanted}.waitFor({ timeout: ${scrollEndWaitMs} }).catch(() => {}); if (!(await ${wanted}.isVisible()) && !(await ${moved})) throw new Error(${missing}); } await ${wanted}.scrollIntoViewIfNeeded();`;
  },
});

/**
 * Scrolls once and lets the page render a frame (a virtualized list draws its rows on the scroll event, before the
 * next frame; scrolling on before it has would skip past them). Answers whether the container moved (false: it is
 * at its end in that direction).
 */
export const scrollOnceSource =
  "async (el, d) => { const step = d.pixels ?? (d.x !== 0 ? el.clientWidth : el.clientHeight) * 0.8; const x = el.scrollLeft, y = el.scrollTop; el.scrollBy({ left: d.x * step, top: d.y * step, behavior: 'instant' }); await new Promise((r) => { requestAnimationFrame(() => requestAnimationFrame(r)); setTimeout(r, 100); }); return el.scrollLeft !== x || el.scrollTop !== y; }";
const scrollBy =
  pageFunction<(el: Element, delta: { x: number; y: number; pixels: number | null }) => Promise<boolean>>(
    scrollOnceSource,
  );

const directions: Record<ScrollSpec['direction'], { x: number; y: number }> = {
  up: { x: 0, y: -1 },
  down: { x: 0, y: 1 },
  left: { x: -1, y: 0 },
  right: { x: 1, y: 0 },
};

/**
 * Scrolls a container: once by the distance, or until `untilText` is visible inside it (lazy lists load rows as
 * they scroll). It ends on what it finds: the text showing, or the container's end (it stops moving and nothing
 * loads within scrollEndWaitMs), or the step's time; never after a fixed count, which stopped a 300-row list box
 * short of row 250 (issue 32). The text must appear: a list that no longer has it fails the step.
 */
async function scrollContainer(container: Locator, spec: ScrollSpec, timeout: number): Promise<void> {
  const delta = { ...directions[spec.direction], pixels: spec.pixels ?? null };
  const box = container.first();
  if (!spec.untilText) {
    await box.evaluate(scrollBy, delta, { timeout });
    return;
  }
  const wanted = box.getByText(spec.untilText).first();
  const budget = Math.max(timeout, scrollUntilTextMs);
  const deadline = Date.now() + budget;
  // Each call may take what is left of the whole budget, not the step's own timeout: a page that is slow to answer
  // one scroll (a heavy scroll handler, a busy machine) is still moving towards the text. One scroll's 3 s timeout
  // failed a recording at row 150 of 250 under load.
  const left = () => Math.max(1, deadline - Date.now());
  for (;;) {
    if (await wanted.isVisible()) {
      await wanted.scrollIntoViewIfNeeded({ timeout: Math.max(timeout, left()) });
      return;
    }
    if (Date.now() >= deadline)
      throw new Error(`"${spec.untilText}" did not appear while scrolling ${spec.direction} for ${budget} ms`);
    if (await box.evaluate(scrollBy, delta, { timeout: left() })) continue;
    // At the end: a lazy list loads its next rows now (the text may show, or the container can move again).
    const wait = Math.max(0, Math.min(scrollEndWaitMs, deadline - Date.now()));
    if (
      await wanted.waitFor({ state: 'visible', timeout: wait }).then(
        () => true,
        () => false,
      )
    )
      continue;
    if (!(await box.evaluate(scrollBy, delta, { timeout: left() })))
      throw new Error(`"${spec.untilText}" did not appear: scrolled ${spec.direction} to the end of the container`);
  }
}
