import type { Page } from 'playwright-core';
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
 * error message in place of the expected one is the usual reason), then the main content. Never throws.
 */
export async function pageExcerpt(page: Page, secrets: Record<string, string> = {}): Promise<string> {
  try {
    const text = await page.evaluate(shownText);
    const flat = redact(text.replace(/\s+/g, ' ').trim(), secrets);
    return flat.length > maxChars ? `${flat.slice(0, maxChars - 1)}…` : flat;
  } catch {
    return '';
  }
}
