// One axe-core scan of a page and its frames (WCAG 2.x A and AA, colour contrast included), bounded in time.
// Not @axe-core/playwright's AxeBuilder: it opens a blank tab for every scan (a new tab a run would see) and
// injects the 500 KB script twice each time; here the script goes once into each document that lacks it.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Frame, Page } from 'playwright-core';
import { withTimeout } from '../../timeouts.js';
import { pageFunction } from '../page-function.js';

export interface AxeFinding {
  rule: string;
  impact: 'critical' | 'serious' | 'moderate' | 'minor';
  help: string;
  /** The element: its selector and (shortened) markup. */
  target: string;
}

const require = createRequire(import.meta.url);
let axeSource: string | undefined;
const source = (): string => (axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));

export const axeTags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
const maxFrames = 10;
const maxNodesPerRule = 5;
// Part of every cache key: findings stored by another axe-core, other rules or another digest are not this scan's.
const scanVersion = `axe-${(require('axe-core/package.json') as { version: string }).version}/${axeTags.join(',')}/n${maxNodesPerRule}/d2`;

const hasAxe = pageFunction<() => boolean>('() => typeof window.axe === "object"');
// Frames of other origins answer axe's frame messages too: a third-party form in an iframe is the page's form.
// Appended to the script, so a document takes it in one round trip.
const configure = ';window.axe.configure({ allowedOrigins: ["<unsafe_all_origins>"] });';
const run = pageFunction<
  (arg: { tags: string[]; maxNodes: number }) => Promise<AxeFinding[]>
>(`async ({ tags, maxNodes }) => {
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
  await frame.evaluate(source() + configure);
}

// A digest of what axe reads (FNV-1a): the markup of the document, of its open shadow roots and of its same-origin
// frames, every style rule (a stylesheet can change colours without the markup changing, and rules added through
// the CSSOM are not in the markup), and the viewport. Left out is what axe never reads, so a page that differs only
// in it is the same document: script code, CSP nonces, integrity hashes, hidden inputs' values, CSRF meta tokens.
// A few ms even for a large page, against ~60-300 ms for a scan. A document with too many style rules to read
// cheaply gets a digest of its own every time: scanned, never taken from a cache.
const digest = pageFunction<() => string>(`() => {
  let budget = 20000;
  let text = location.pathname + '|' + innerWidth + 'x' + innerHeight + '|';
  const tidy = (html) => html
    .replace(/<script\\b([^>]*)>[\\s\\S]*?<\\/script>/gi, '<script$1>')
    .replace(/\\s(?:nonce|integrity)="[^"]*"/gi, '')
    .replace(/<input\\b[^>]*>/gi, (tag) => /\\btype="hidden"/i.test(tag) ? tag.replace(/\\svalue="[^"]*"/i, '') : tag)
    .replace(/<meta\\b[^>]*>/gi, (tag) => /\\bname="[^"]*(?:csrf|token|nonce)[^"]*"/i.test(tag) ? tag.replace(/\\scontent="[^"]*"/i, '') : tag);
  const styles = (sheets) => {
    for (const sheet of sheets) {
      text += '|' + (sheet.href || '') + ' ' + (sheet.media ? sheet.media.mediaText : '') + (sheet.disabled ? ' off' : '');
      let rules;
      try { rules = sheet.cssRules; } catch { continue; }
      budget -= rules.length;
      if (budget < 0) return;
      for (const rule of rules) text += rule.cssText;
    }
  };
  const shadows = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (!el.shadowRoot) continue;
      text += '|#' + tidy(el.shadowRoot.innerHTML);
      styles(el.shadowRoot.adoptedStyleSheets || []);
      shadows(el.shadowRoot);
    }
  };
  const documentText = (doc) => {
    text += tidy(doc.documentElement.outerHTML);
    styles([...doc.styleSheets, ...(doc.adoptedStyleSheets || [])]);
    shadows(doc);
    for (const f of doc.querySelectorAll('iframe')) {
      let inner = null;
      try { inner = f.contentDocument; } catch {}
      if (inner && inner.documentElement) documentText(inner);
      else text += '|' + f.src;
    }
  };
  documentText(document);
  if (budget < 0) return 'unread:' + Math.random().toString(36).slice(2);
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 0x01000193); }
  return (h >>> 0).toString(16) + ':' + text.length;
}`);

/** Findings of documents scanned before, by key: a store shared by a project's workers (src/services/a11y-scans.ts). */
export interface ScanCache {
  get(key: string): Promise<AxeFinding[] | undefined>;
  set(key: string, findings: AxeFinding[]): Promise<void>;
}

const maxCached = 200;
const cacheTtlMs = 10 * 60_000;
// Worker-wide on purpose: the tests of a run visit the same pages (every test's sign-in page), and a document that
// is the same as one scanned minutes ago has the same violations. Bounded in entries and age; in front of the
// project's store, which keeps them longer and for every worker.
// `findings` undefined: the document's scan timed out after `slowMs` and never ended (see scanPage).
const cache = new Map<string, { at: number; findings: AxeFinding[] | undefined; slowMs?: number }>();

/** The document's digest, for `scanPage` and for telling whether the page changed since the last scan. */
export const pageDigest = (page: Page): Promise<string> => page.evaluate(digest);

/**
 * The violations on the page as it is now: from this worker's cache or the project's `store` when a document with
 * the same digest was scanned before, else scanned (and remembered in both). Throws when the page went away or the
 * scan took longer than `timeoutMs`; a store that fails is passed over, never the scan.
 *
 * A scan that times out goes on in the page all the same (axe cannot be stopped), so its findings are remembered
 * when it ends; one that never ends (the page went away first) marks the document as too slow to scan, and it is not
 * scanned again while the mark lasts. Else every run of a test on a large page (thousands of elements) would pay the
 * whole timeout again, with axe still busy in the renderer while the steps run.
 */
export async function scanPage(
  page: Page,
  timeoutMs: number,
  pageKey?: string,
  store?: ScanCache,
): Promise<AxeFinding[]> {
  const digestKey = pageKey ?? (await pageDigest(page));
  const cacheable = !digestKey.startsWith('unread:');
  const key = `${scanVersion}:${digestKey}`;
  const hit = cacheable ? cache.get(key) : undefined;
  if (hit && Date.now() - hit.at < cacheTtlMs) {
    if (hit.findings) return hit.findings;
    throw new Error(`an earlier axe scan of this document took longer than ${hit.slowMs} ms and never ended`);
  }
  const stored = cacheable ? await store?.get(key).catch(() => undefined) : undefined;
  if (stored) {
    remember(key, stored);
    return stored;
  }
  const attempt = scanUncached(page);
  const findings = await withTimeout(
    attempt,
    timeoutMs,
    () => new Error(`axe scan took longer than ${timeoutMs} ms`),
  ).catch((err: unknown) => {
    if (cacheable) {
      attempt.then(
        (late) => keep(key, late, store),
        // Never over what another scan of the same document found meanwhile (a second one running beside it fails).
        () => cache.get(key)?.findings ?? remember(key, undefined, timeoutMs),
      );
    }
    throw err;
  });
  if (cacheable) await keep(key, findings, store);
  return findings;
}

function remember(key: string, findings: AxeFinding[] | undefined, slowMs?: number): void {
  if (cache.size >= maxCached) cache.delete(cache.keys().next().value!);
  cache.set(key, { at: Date.now(), findings, slowMs });
}

async function keep(key: string, findings: AxeFinding[], store: ScanCache | undefined): Promise<void> {
  remember(key, findings);
  await store?.set(key, findings).catch(() => undefined);
}

/** Forgets every scan this worker remembers (the bench measures scans without it). */
export const clearScanCache = (): void => cache.clear();

function scanUncached(page: Page): Promise<AxeFinding[]> {
  const scan = async (): Promise<AxeFinding[]> => {
    // A child frame that cannot take the script (gone, sandboxed) is left out, not the whole scan.
    const frames = page.frames().slice(0, maxFrames);
    await inject(page.mainFrame());
    await Promise.all(frames.filter((f) => f !== page.mainFrame()).map((f) => inject(f).catch(() => undefined)));
    return page.evaluate(run, { tags: axeTags, maxNodes: maxNodesPerRule });
  };
  const attempt = scan();
  attempt.catch(() => undefined);
  return attempt;
}
