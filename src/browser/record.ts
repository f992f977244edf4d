import type { Locator, Page } from 'playwright-core';
import { quote, resolveLocator } from './locators.js';

export class UnknownRefError extends Error {
  override name = 'UnknownRefError';
}

/**
 * Turns a snapshot ref into durable locator expressions: Playwright's `normalize()` (role + accessible name,
 * label, test id ...) made unique on the page, plus fallbacks that point at the same element today.
 */
export async function locatorForRef(page: Page, ref: string): Promise<{ locator: string; fallbacks: string[] }> {
  const element = page.locator(`aria-ref=${ref}`);
  if ((await element.count().catch(() => 0)) === 0) {
    throw new UnknownRefError(`there is no element [ref=${ref}] on the page now; use a ref from the latest snapshot`);
  }
  const primary = await unique(page, element, (await element.normalize()).toString());
  const fallbacks: string[] = [];
  for (const candidate of await attributeLocators(element)) {
    if (candidate === primary || fallbacks.length >= 3) continue;
    if (await pointsAt(page, candidate, element)) fallbacks.push(candidate);
  }
  return { locator: primary, fallbacks };
}

// A normalized locator may match several elements (two "Delete" buttons): pin the index of ours.
async function unique(page: Page, element: Locator, expression: string): Promise<string> {
  const matches = resolveLocator(page, expression);
  const count = await matches.count();
  if (count <= 1) return expression;
  const handle = await element.elementHandle();
  const index = await matches.evaluateAll((els, target) => els.indexOf(target as HTMLElement), handle);
  await handle?.dispose();
  return index >= 0 ? `${expression}.nth(${index})` : `${expression}.first()`;
}

async function pointsAt(page: Page, expression: string, element: Locator): Promise<boolean> {
  try {
    const candidate = resolveLocator(page, expression);
    if ((await candidate.count()) !== 1) return false;
    const handle = await element.elementHandle();
    const same = await candidate.evaluate((el, target) => el === target, handle);
    await handle?.dispose();
    return same;
  } catch {
    return false;
  }
}

async function attributeLocators(element: Locator): Promise<string[]> {
  const attrs = await element.evaluate((el) => ({
    testId: el.getAttribute('data-testid'),
    placeholder: el.getAttribute('placeholder'),
    name: el.getAttribute('name'),
    tag: el.tagName.toLowerCase(),
  }));
  const out: string[] = [];
  if (attrs.testId) out.push(`getByTestId(${quote(attrs.testId)})`);
  if (attrs.placeholder) out.push(`getByPlaceholder(${quote(attrs.placeholder)})`);
  // Ids and CSS are not fallbacks: they survive a rename, and a renamed control must surface as a change, not pass silently.
  if (attrs.name && ['input', 'select', 'textarea'].includes(attrs.tag)) out.push(`locator(${quote(`${attrs.tag}[name="${attrs.name}"]`)})`);
  return out;
}
