// Navigation steps: open a URL or app path, Back, reload.
import { z } from 'zod';
import { defineStepKind } from './kind.js';

/** Same-origin URLs are recorded as paths, so the steps run against any environment of the application. */
export function relativeTo(url: string, baseUrl: string): string {
  try {
    const target = new URL(url, baseUrl);
    const base = new URL(baseUrl);
    return target.origin === base.origin ? `${target.pathname}${target.search}${target.hash}` : target.toString();
  } catch {
    return url;
  }
}

export function resolveUrl(value: string, baseUrl: string): string {
  return new URL(value, baseUrl).toString();
}

export const navigate = defineStepKind({
  tool: 'navigate',
  description: 'Open a URL or app path',
  args: z.object({ url: z.string() }),
  actions: ['navigate'],
  failure: 'environment',
  example: { url: '/cart' },
  toStep: ({ url }, { description, baseUrl }) => ({ action: 'navigate', value: relativeTo(url, baseUrl), description }),
  perform: async ({ page, text, opts, timeout }) => {
    await page.goto(resolveUrl(text(), opts.baseUrl), {
      waitUntil: 'domcontentloaded',
      timeout: Math.max(timeout, 15_000),
    });
  },
  exportStatement: (_step, { value }) => `await page.goto(new URL(${value}, baseURL).toString());`,
});

export const goBack = defineStepKind({
  tool: 'go_back',
  description: 'Browser Back',
  args: z.object({}),
  actions: ['go_back'],
  example: {},
  toStep: (_args, { description }) => ({ action: 'go_back', description }),
  perform: async ({ page, timeout }) => {
    const before = page.url();
    // null with the URL unchanged: there was no page to go back to, a broken test rather than a pass. (A
    // single-page app's Back answers null too, but its URL changes.)
    const response = await page.goBack({ waitUntil: 'domcontentloaded', timeout: Math.max(timeout, 15_000) });
    // The blank page a browser tab starts on is not a page of the application either.
    if ((response === null && page.url() === before) || page.url() === 'about:blank') {
      throw new Error('there is no previous page to go back to');
    }
  },
  exportStatement: () => 'await page.goBack();',
});

export const reload = defineStepKind({
  tool: 'reload',
  description: 'Reload',
  args: z.object({}),
  actions: ['reload'],
  example: {},
  toStep: (_args, { description }) => ({ action: 'reload', description }),
  perform: async ({ page, timeout }) => {
    await page.reload({ waitUntil: 'domcontentloaded', timeout: Math.max(timeout, 15_000) });
  },
  exportStatement: () => 'await page.reload();',
});
