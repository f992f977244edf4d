// Screenshots that show no secret. A secret config (or TOTP code, or environment password) typed into a field is
// visible in a screenshot unless the field is a password input; a page may also echo it as text. Before a screenshot
// is taken, every field whose value holds a secret and every element whose own text holds one is marked, and
// Playwright paints the marked elements over (`mask`), in every frame. The marks are removed afterwards.
import type { Frame, Page } from 'playwright-core';
import { configReferences, type Step } from '../../domain/steps.js';
import { pageFunction } from '../page-function.js';

const attribute = 'data-proctor-secret-mask';
/** Shorter values are not secrets worth hiding and would match everywhere (as `redact` in snapshot.ts). */
const minSecretLength = 3;

/** Marks the elements showing a secret; returns how many. Text nodes mark their parent; fields match on value. */
const markSecrets = pageFunction<
  (args: { secrets: string[]; attribute: string }) => number
>(`({ secrets, attribute }) => {
  const holds = (text) => typeof text === 'string' && secrets.some((s) => text.includes(s));
  let marked = 0;
  const mark = (el) => {
    if (el && !el.hasAttribute(attribute)) {
      el.setAttribute(attribute, '');
      marked++;
    }
  };
  for (const el of document.querySelectorAll('input, textarea, select')) if (el.type === 'password' || holds(el.value)) mark(el);
  const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) if (holds(node.nodeValue)) mark(node.parentElement);
  return marked;
}`);

const unmarkSecrets = pageFunction<(attribute: string) => void>(`(attribute) => {
  for (const el of document.querySelectorAll('[' + attribute + ']')) el.removeAttribute(attribute);
}`);

/** A frame that went away or navigated mid-way shows nothing to mask. */
const inFrames = <T>(page: Page, each: (frame: Frame) => Promise<T>) =>
  Promise.all(page.frames().map((frame) => each(frame).catch(() => undefined)));

/** `page.screenshot` with every element showing one of `secrets` (and every password field) painted over. */
export async function maskedScreenshot(
  page: Page,
  secrets: string[],
  options: { fullPage?: boolean; timeout?: number } = {},
): Promise<Buffer> {
  const shown = secrets.filter((s) => s.length >= minSecretLength);
  await inFrames(page, (frame) => frame.evaluate(markSecrets, { secrets: shown, attribute }));
  try {
    return await page.screenshot({ ...options, mask: page.frames().map((frame) => frame.locator(`[${attribute}]`)) });
  } finally {
    await inFrames(page, (frame) => frame.evaluate(unmarkSecrets, attribute));
  }
}

/** Whether a step types or sends a secret (by `{{NAME}}`): then the page may show it, and its screencast must go. */
export const stepsUseSecret = (steps: Step[], secretNames: string[]): boolean =>
  steps.some(
    (step) => step.value !== undefined && configReferences(step.value).some((name) => secretNames.includes(name)),
  );
