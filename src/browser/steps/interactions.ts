import type { Locator, Page } from 'playwright-core';
import type { ScrollSpec, Step, StepElement } from '../../domain/steps.js';
import { resolveLocator } from '../locators.js';
import { pageFunction } from '../page-function.js';

// The actions a plain click/fill cannot stand in for: double-click, drag-and-drop, typing key by key, scrolling,
// Back and reload. performAction dispatches here; errors are plain, and performAction words them for the run.

export const interactionActions = new Set<Step['action']>(['dblclick', 'drag', 'type', 'scroll', 'go_back', 'reload']);

/** Of these, the ones acting on the step's element (Back and reload act on the page). */
export const interactionElementActions = new Set<Step['action']>(['dblclick', 'drag', 'type', 'scroll']);

/** Pause between keys: long enough for a page's keystroke handlers (an autocomplete's debounce) to see each. */
export const typeDelayMs = 50;

/**
 * How long an `untilText` scroll waits at the container's end for a lazy list to load more (or the text to show)
 * before it fails: the end is where the text could not be, not a number of scrolls.
 */
export const scrollEndWaitMs = 1_000;

export interface InteractionContext {
  /** The step's element (already verified at replay). */
  locator: Locator | undefined;
  /** `drag`: the verified drop target (replay); burn-in resolves the one it just recorded. */
  drop?: Locator;
  /** The step's value with its `{{NAME}}` references resolved. */
  value: string | undefined;
  timeoutMs: number;
}

export async function performInteraction(page: Page, step: Step, ctx: InteractionContext): Promise<void> {
  const { timeoutMs: timeout } = ctx;
  const element = (): Locator => {
    if (!ctx.locator) throw new Error(`${step.action} needs an element`);
    return ctx.locator;
  };
  switch (step.action) {
    case 'dblclick':
      await element().dblclick({ timeout });
      return;
    case 'drag': {
      const drop = ctx.drop ?? dropLocator(page, step.dropTarget);
      await element().dragTo(drop, { timeout });
      return;
    }
    case 'type': {
      if (ctx.value === undefined) throw new Error('type needs a value');
      // Emptied first so the field holds exactly the typed text on every replay; then key by key, so handlers
      // that listen to keystrokes (and not to `fill`'s single input event) react as they do for a person.
      await element().fill('', { timeout });
      await element().pressSequentially(ctx.value, { delay: typeDelayMs, timeout });
      return;
    }
    case 'scroll':
      if (step.scroll) await scrollContainer(element(), step.scroll, timeout);
      else await element().scrollIntoViewIfNeeded({ timeout });
      return;
    case 'go_back': {
      const before = page.url();
      // null with the URL unchanged: there was no page to go back to, a broken test rather than a pass. (A
      // single-page app's Back answers null too, but its URL changes.)
      const response = await page.goBack({ waitUntil: 'domcontentloaded', timeout: Math.max(timeout, 15_000) });
      // The blank page a browser tab starts on is not a page of the application either.
      if ((response === null && page.url() === before) || page.url() === 'about:blank') {
        throw new Error('there is no previous page to go back to');
      }
      return;
    }
    case 'reload':
      await page.reload({ waitUntil: 'domcontentloaded', timeout: Math.max(timeout, 15_000) });
      return;
    default:
      throw new Error(`${step.action} is not an interaction`);
  }
}

function dropLocator(page: Page, drop: StepElement | undefined): Locator {
  if (!drop) throw new Error('drag needs a drop target');
  return resolveLocator(page, drop.locator);
}

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
  const deadline = Date.now() + Math.max(timeout, 5_000);
  for (;;) {
    if (await wanted.isVisible()) {
      await wanted.scrollIntoViewIfNeeded({ timeout });
      return;
    }
    if (Date.now() >= deadline)
      throw new Error(
        `"${spec.untilText}" did not appear while scrolling ${spec.direction} for ${Math.max(timeout, 5_000)} ms`,
      );
    if (await box.evaluate(scrollBy, delta, { timeout })) continue;
    // At the end: a lazy list loads its next rows now (the text may show, or the container can move again).
    const wait = Math.max(0, Math.min(scrollEndWaitMs, deadline - Date.now()));
    if (
      await wanted.waitFor({ state: 'visible', timeout: wait }).then(
        () => true,
        () => false,
      )
    )
      continue;
    if (!(await box.evaluate(scrollBy, delta, { timeout })))
      throw new Error(`"${spec.untilText}" did not appear: scrolled ${spec.direction} to the end of the container`);
  }
}
