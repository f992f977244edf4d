import type { FrameLocator, Locator, Page } from 'playwright-core';
import { framePrefix } from '../domain/locator-frames.js';
import { LocatorSyntaxError, parseLocator } from '../domain/locators.js';

// A stored locator expression (see src/domain/locators.ts) made into a Playwright locator, one parsed call at a time.

type Target = Page | Locator | FrameLocator;

/** Builds the Playwright locator an expression describes, on `page`. */
export function resolveLocator(page: Page, expression: string): Locator {
  let target: Target = page;
  for (const { method, args } of parseLocator(expression)) {
    // The parser only lets through the methods above; each exists on the target kinds it is chained on.
    const fn: ((...a: unknown[]) => Target) | undefined = (
      target as unknown as Record<string, (...a: unknown[]) => Target>
    )[method];
    if (typeof fn !== 'function')
      throw new LocatorSyntaxError(`${method} cannot follow the previous call in ${expression}`);
    target = fn.apply(target, args);
  }
  if (!('click' in target)) throw new LocatorSyntaxError(`${expression} does not end at an element`);
  return target as Locator;
}

/** The body of the document `expression`'s element is in: its frame's (at any depth), or the page's. */
export const documentBodyOf = (page: Page, expression: string): Locator =>
  resolveLocator(page, `${framePrefix(expression)}locator('body')`);
