// Steps the mouse does on an element: click, double-click, hover, set a checkbox, drag onto another element.
import type { Locator, Page } from 'playwright-core';
import { z } from 'zod';
import { resolveLocator } from '../locators.js';
import { indexOfElement } from '../page-function.js';
import { locatorForRef, recordElement, UnknownRefError } from '../record/record.js';
import { defineStepKind, elementRef } from './kind.js';

const onElement = z.object({ ref: elementRef() });

export const click = defineStepKind({
  tool: 'click',
  description: 'Click',
  args: onElement,
  actions: ['click'],
  element: 'required',
  example: { ref: 'button' },
  toStep: async ({ ref }, ctx) => ({
    action: 'click',
    ...(await locatorForRef(ctx.page, ref)),
    description: ctx.description,
  }),
  perform: async ({ element, timeout }) => element().click({ timeout }),
  exportStatement: (_step, { el }) => `await ${el}.click();`,
});

export const dblclick = defineStepKind({
  tool: 'dblclick',
  description: 'Double-click',
  args: onElement,
  actions: ['dblclick'],
  element: 'required',
  example: { ref: 'button' },
  toStep: async ({ ref }, ctx) => ({
    action: 'dblclick',
    ...(await locatorForRef(ctx.page, ref)),
    description: ctx.description,
  }),
  perform: async ({ element, timeout }) => element().dblclick({ timeout }),
  exportStatement: (_step, { el }) => `await ${el}.dblclick();`,
});

export const hover = defineStepKind({
  tool: 'hover',
  description: 'Hover',
  args: onElement,
  actions: ['hover'],
  element: 'required',
  example: { ref: 'button' },
  toStep: async ({ ref }, ctx) => ({
    action: 'hover',
    ...(await locatorForRef(ctx.page, ref)),
    description: ctx.description,
  }),
  perform: async ({ element, timeout }) => element().hover({ timeout }),
  exportStatement: (_step, { el }) => `await ${el}.hover();`,
});

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
