// Steps the mouse does on an element: click, double-click, hover, set a checkbox, drag onto another element.
import type { Locator, Page } from 'playwright-core';
import { z } from 'zod';
import { resolveLocator } from '../locators.js';
import { indexOfElement } from '../page-function.js';
import { locatorForRef, recordElement, UnknownRefError } from '../record/record.js';
import { defineStepKind, elementRef } from './kind.js';

const onElement = z.object({ ref: elementRef() });

/**
 * A step that does one thing with the mouse to an element, with nothing more to say: its tool, its action and
 * Playwright's Locator method all bear the same name.
 */
function mouseStep(action: 'click' | 'dblclick' | 'hover', description: string) {
  return defineStepKind({
    tool: action,
    description,
    args: onElement,
    actions: [action],
    element: 'required',
    example: { ref: 'button' },
    toStep: async ({ ref }, ctx) => ({
      action,
      ...(await locatorForRef(ctx.page, ref)),
      description: ctx.description,
    }),
    perform: async ({ element, timeout }) => element()[action]({ timeout }),
    exportStatement: (_step, { el }) => `await ${el}.${action}();`,
  });
}

export const click = mouseStep('click', 'Click');
export const dblclick = mouseStep('dblclick', 'Double-click');
export const hover = mouseStep('hover', 'Hover');

export const check = defineStepKind({
  tool: 'check',
  description: 'Set a checkbox/radio/switch',
  args: z.object({ ref: elementRef(), checked: z.boolean() }),
  actions: ['check', 'uncheck'],
  element: 'required',
  example: { ref: 'checkbox', checked: false },
  toStep: async ({ ref, checked }, ctx) => ({
    action: checked ? 'check' : 'uncheck',
    ...(await locatorForRef(ctx.page, ref)),
    description: ctx.description,
  }),
  perform: async ({ step, element, timeout }) =>
    step.action === 'uncheck' ? element().uncheck({ timeout }) : element().check({ timeout }),
  exportStatement: (step, { el }) => `await ${el}.${step.action === 'uncheck' ? 'uncheck' : 'check'}();`,
});

export const drag = defineStepKind({
  tool: 'drag',
  description: 'Drag ref onto to',
  args: z.object({ ref: elementRef(), to: elementRef() }),
  actions: ['drag'],
  element: 'required',
  example: { ref: 'listitem', to: 'list' },
  toStep: async ({ ref, to }, { page, description }) => {
    // Pinned first: recording the dragged element reads its aria snapshot, which drops the page's refs.
    const drop = await pin(page, to);
    const source = await locatorForRef(page, ref);
    const target = await recordElement(page, drop);
    return { action: 'drag', ...source, dropTarget: target, description };
  },
  perform: async ({ page, step, element, drop, timeout }) => {
    if (!drop && !step.dropTarget) throw new Error('drag needs a drop target');
    await element().dragTo(drop ?? resolveLocator(page, step.dropTarget!.locator), { timeout });
  },
  exportStatement: (step, { el, elementOf }) => `await ${el}.dragTo(${step.dropTarget && elementOf(step.dropTarget)});`,
});

/** A ref as a locator that no longer needs the ref: its normalized expression, made unique. */
export async function pin(page: Page, ref: string): Promise<Locator> {
  const element = page.locator(`aria-ref=${ref}`);
  if ((await element.count().catch(() => 0)) === 0)
    throw new UnknownRefError(`there is no element [ref=${ref}] on the page now; use a ref from the latest snapshot`);
  const matches = resolveLocator(page, (await element.normalize()).toString());
  if ((await matches.count()) <= 1) return matches;
  const handle = await element.elementHandle();
  const index = await matches.evaluateAll(indexOfElement, handle);
  await handle?.dispose();
  return index >= 0 ? matches.nth(index) : matches.first();
}
