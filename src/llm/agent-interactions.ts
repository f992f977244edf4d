import type { Locator, Page } from 'playwright-core';
import { scrollDirections, type ScrollSpec, type Step } from '../domain/steps.js';
import { resolveLocator } from '../browser/locators.js';
import { indexOfElement } from '../browser/page-function.js';
import { locatorForRef, recordElement, UnknownRefError } from '../browser/record/record.js';

// The agent's side of the interaction tools (dblclick, drag, type, scroll, go_back, reload): a tool call becomes
// the step that replay performs and the export writes.

type Args = Record<string, unknown>;

/** The step for an interaction tool call, or undefined when `name` is not one. */
export async function interactionStep(
  page: Page,
  name: string,
  args: Args,
  description: string,
): Promise<Step | undefined> {
  const str = (key: string): string | undefined =>
    typeof args[key] === 'string' && args[key] !== '' ? (args[key] as string) : undefined;
  const need = (key: string): string => {
    const v = str(key);
    if (v === undefined) throw new Error(`${name} needs "${key}"`);
    return v;
  };
  switch (name) {
    case 'dblclick':
      return { action: 'dblclick', ...(await locatorForRef(page, need('ref'))), description };
    case 'type':
      return { action: 'type', ...(await locatorForRef(page, need('ref'))), value: need('text'), description };
    case 'drag': {
      // Pinned first: recording the dragged element reads its aria snapshot, which drops the page's refs.
      const drop = await pin(page, need('to'));
      const source = await locatorForRef(page, need('ref'));
      const target = await recordElement(page, drop);
      return { action: 'drag', ...source, dropTarget: target, description };
    }
    case 'scroll': {
      const direction = str('direction');
      const element = await locatorForRef(page, need('ref'));
      if (direction === undefined) return { action: 'scroll', ...element, description };
      if (!(scrollDirections as readonly string[]).includes(direction))
        throw new Error(`scroll direction must be one of ${scrollDirections.join(', ')}`);
      const pixels = typeof args.pixels === 'number' && args.pixels > 0 ? Math.round(args.pixels) : undefined;
      const scroll: ScrollSpec = {
        direction: direction as ScrollSpec['direction'],
        ...(pixels && { pixels }),
        ...(str('untilText') && { untilText: str('untilText') }),
      };
      return { action: 'scroll', ...element, scroll, description };
    }
    case 'go_back':
      return { action: 'go_back', description };
    case 'reload':
      return { action: 'reload', description };
    default:
      return undefined;
  }
}

/** A ref as a locator that no longer needs the ref: its normalized expression, made unique. */
async function pin(page: Page, ref: string): Promise<Locator> {
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
