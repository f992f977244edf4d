// One axe-core scan of a page and its frames (WCAG 2.x A and AA, colour contrast included), bounded in time.
// Not @axe-core/playwright's AxeBuilder: it opens a blank tab for every scan (a new tab a run would see) and
// injects the 500 KB script twice each time; here the script goes once into each document that lacks it.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Frame, Page } from 'playwright-core';
import { pageFunction } from './page-function.js';

export interface AxeFinding {
  rule: string;
  impact: 'critical' | 'serious' | 'moderate' | 'minor';
  help: string;
  /** The element: its selector and (shortened) markup. */
  target: string;
}

let axeSource: string | undefined;
const source = (): string => (axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8'));

export const axeTags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
const maxFrames = 10;
const maxNodesPerRule = 5;

const hasAxe = pageFunction<() => boolean>('() => typeof window.axe === "object"');
// Frames of other origins answer axe's frame messages too: a third-party form in an iframe is the page's form.
const configure = pageFunction<() => void>('() => window.axe.configure({ allowedOrigins: ["<unsafe_all_origins>"] })');
const run = pageFunction<(arg: { tags: string[]; maxNodes: number }) => Promise<AxeFinding[]>>(`async ({ tags, maxNodes }) => {
  const result = await window.axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'], iframes: true });
  return result.violations.flatMap((v) => v.nodes.slice(0, maxNodes).map((n) => ({
    rule: v.id,
    impact: v.impact || 'minor',
    help: v.help,
    target: n.target.map(String).join(' >>> ') + ' ' + String(n.html).replace(/\\s+/g, ' ').slice(0, 160),
  })));
}`);

async function inject(frame: Frame): Promise<void> {
  if (await frame.evaluate(hasAxe)) return;
  await frame.evaluate(source());
  await frame.evaluate(configure);
}

// A digest of the document and its same-origin frames as they are now (FNV-1a over their markup): two documents with
// the same digest get the same findings. A few ms even for a large page, against ~100-300 ms for a scan.
const digest = pageFunction<() => string>(`() => {
  let text = location.pathname + document.documentElement.outerHTML;
  for (const f of document.querySelectorAll('iframe')) {
    try { text += f.contentDocument ? f.contentDocument.documentElement.outerHTML : f.src; } catch { text += f.src; }
  }
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 0x01000193); }
  return (h >>> 0).toString(16) + ':' + text.length;
}`);

const maxCached = 200;
const cacheTtlMs = 10 * 60_000;
// Worker-wide on purpose: the tests of a run visit the same pages (every test's sign-in page), and a document that
// is byte for byte the same as one scanned minutes ago has the same violations. Bounded in entries and age.
const cache = new Map<string, { at: number; findings: AxeFinding[] }>();

/** The document's digest, for `scanPage` and for telling whether the page changed since the last scan. */
export const pageDigest = (page: Page): Promise<string> => page.evaluate(digest);

/**
 * The violations on the page as it is now (from the cache when a document with the same digest was scanned
 * recently); throws when the page went away or the scan took longer than `timeoutMs`.
 */
export async function scanPage(page: Page, timeoutMs: number, pageKey?: string): Promise<AxeFinding[]> {
  const key = pageKey ?? (await pageDigest(page));
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < cacheTtlMs) return hit.findings;
  const findings = await scanUncached(page, timeoutMs);
  if (cache.size >= maxCached) cache.delete(cache.keys().next().value!);
  cache.set(key, { at: Date.now(), findings });
  return findings;
}

/** Forgets every cached scan (the bench measures scans without it). */
export const clearScanCache = (): void => cache.clear();

async function scanUncached(page: Page, timeoutMs: number): Promise<AxeFinding[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`axe scan took longer than ${timeoutMs} ms`)), timeoutMs);
  });
  const scan = async (): Promise<AxeFinding[]> => {
    // A child frame that cannot take the script (gone, sandboxed) is left out, not the whole scan.
    const frames = page.frames().slice(0, maxFrames);
    await inject(page.mainFrame());
    await Promise.all(frames.filter((f) => f !== page.mainFrame()).map((f) => inject(f).catch(() => undefined)));
    return page.evaluate(run, { tags: axeTags, maxNodes: maxNodesPerRule });
  };
  const attempt = scan();
  attempt.catch(() => undefined);
  try {
    return await Promise.race([attempt, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
