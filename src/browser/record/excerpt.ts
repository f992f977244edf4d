import type { Page } from 'playwright-core';
import { framePrefix } from '../../domain/locator-frames.js';
import { documentBodyOf } from '../locators.js';
import { pageFunction } from '../page-function.js';
import { redact } from './snapshot.js';

const maxChars = 240;

/** Runs in the page (source text: see page-function.ts): visible alerts and status lines, then the main content. */
const shownText = pageFunction<() => string>(`() => {
  const notices = Array.from(document.querySelectorAll('[role=alert], [role=status], [aria-live]'))
    .filter((el) => el.offsetParent !== null || getComputedStyle(el).position === 'fixed')
    .map((el) => el.innerText.trim())
    .filter(Boolean);
  const main = document.querySelector('main, [role=main]') || document.body;
  return [...notices, main ? main.innerText : ''].join(' | ');
}`);

/**
 * A short, redacted excerpt of what the page shows, for a failed assertion: alerts and status lines first (an
 * error message in place of the expected one is the usual reason), then the main content. With the locator of a
 * step inside an iframe, what that frame shows, or the top page's when the frame is not there: a framed check is about
 * its frame's text. Never throws.
 */
export async function pageExcerpt(page: Page, secrets: Record<string, string> = {}, stepLocator = ''): Promise<string> {
  try {
    // A frame that is not there (any more) leaves the top page to quote.
    const framed = framePrefix(stepLocator)
      ? await documentBodyOf(page, stepLocator)
          .evaluate(shownText, undefined, { timeout: 1_000 })
          .catch(() => undefined)
      : undefined;
    const text = framed ?? (await page.evaluate(shownText));
    const flat = redact(text.replace(/\s+/g, ' ').trim(), secrets);
    return flat.length > maxChars ? `${flat.slice(0, maxChars - 1)}…` : flat;
  } catch {
    return '';
  }
}
