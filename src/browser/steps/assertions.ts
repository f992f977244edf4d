// Steps that check the page rather than act on it: wait for a text or an element, assert an element, a text, the URL.
import type { Locator } from 'playwright-core';
import { z } from 'zod';
import { locatorForRef } from '../record/record.js';
import { showsText } from '../../domain/target-check.js';
import { StepFailedError } from './errors.js';
import { defineStepKind, elementRef, type ToStepContext } from './kind.js';

/**
 * Until `check` holds or `timeoutMs` has passed. Each check is given the time that is left, and one that fails (an
 * element not there yet) is only asked again: a read that waited Playwright's 30 s default, or failed at once, would
 * end the step long after its time or long before it.
 */
async function poll(timeoutMs: number, check: (remainingMs: number) => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check(Math.max(1, deadline - Date.now())).catch(() => false)) return;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Whether `scope` (its first element) shows `expected`, read within `timeout` ms. */
const scopeShows = async (scope: Locator, expected: string, timeout: number) =>
  showsText(await scope.first().innerText({ timeout }), expected);

/** A check's element, recorded for what it must show (its text), not for acting on it. */
const checked = (ref: string | undefined, { page }: ToStepContext) =>
  ref ? locatorForRef(page, ref, 'assert') : undefined;

export const waitFor = defineStepKind({
  tool: 'wait_for',
  description: 'Wait for a text or element',
  args: z.object({ text: z.string().optional(), ref: elementRef().optional() }),
  actions: ['wait_for'],
  failure: 'assertion',
  element: 'optional',
  example: { text: 'Saved' },
  toStep: async ({ text, ref }, ctx) => {
    const el = await checked(ref, ctx);
    if (!el && text === undefined) throw new Error('wait_for needs "text" or "ref"');
    return { action: 'wait_for', ...el, ...(text !== undefined && { value: text }), description: ctx.description };
  },
  perform: async ({ page, step, locator, text, timeout }) => {
    if (locator) return void (await locator.first().waitFor({ state: 'visible', timeout }));
    // Not getByText, which matches any case and any part of a word: "Saved" is not shown by "Unsaved".
    const expected = text();
    await poll(timeout, (left) => scopeShows(page.locator('body'), expected, left)).catch(() => {
      throw new StepFailedError(`expected the text "${expected}" to appear (${step.description})`);
    });
  },
  exportStatement: (_step, { el, value }) =>
    el ? `await ${el}.first().waitFor();` : `await page.getByText(${value}).first().waitFor();`,
});

export const assertVisible = defineStepKind({
  tool: 'assert_visible',
  description: 'Assert an element is visible',
  args: z.object({ ref: elementRef() }),
  actions: ['assert_visible'],
  failure: 'assertion',
  element: 'required',
  example: { ref: 'heading' },
  toStep: async ({ ref }, ctx) => ({
    action: 'assert_visible',
    ...(await locatorForRef(ctx.page, ref, 'assert')),
    description: ctx.description,
  }),
  perform: async ({ step, element, timeout }) => {
    await element()
      .first()
      .waitFor({ state: 'visible', timeout })
      .catch(() => {
        throw new StepFailedError(`expected ${step.locator} to be visible (${step.description})`);
      });
  },
  exportStatement: (_step, { el }) => `await expect(${el}.first()).toBeVisible();`,
});

export const assertText = defineStepKind({
  tool: 'assert_text',
  description: 'Assert a text is shown (in ref)',
  args: z.object({ text: z.string(), ref: elementRef().optional() }),
  actions: ['assert_text'],
  failure: 'assertion',
  element: 'optional',
  example: { text: 'Total' },
  toStep: async ({ text, ref }, ctx) => ({
    action: 'assert_text',
    ...(await checked(ref, ctx)),
    value: text,
    description: ctx.description,
  }),
  perform: async ({ page, step, locator, text, timeout }) => {
    const expected = text();
    const scope = locator ?? page.locator('body');
    // Whole words, case and digits counting: "Total: 10" is not shown by "Total: 100".
    await poll(timeout, (left) => scopeShows(scope, expected, left)).catch(() => {
      throw new StepFailedError(`expected the text "${expected}" on the page (${step.description})`);
    });
  },
  exportStatement: (_step, { el, value }) =>
    `await expect(${el ? `${el}.first()` : `page.locator('body')`}).toContainText(${value});`,
});

export const assertUrl = defineStepKind({
  tool: 'assert_url',
  description: 'Assert the URL contains',
  args: z.object({ contains: z.string() }),
  actions: ['assert_url'],
  failure: 'assertion',
  example: { contains: '/cart' },
  toStep: ({ contains }, { description }) => ({ action: 'assert_url', value: contains, description }),
  perform: async ({ page, text, timeout }) => {
    const expected = text();
    await poll(timeout, async () => page.url().includes(expected)).catch(() => {
      throw new StepFailedError(`expected the URL to contain "${expected}" but it is ${page.url()}`);
    });
  },
  exportStatement: (step) =>
    `await expect(page).toHaveURL(/${(step.value ?? '').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}/);`,
});
