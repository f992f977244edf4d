// Discovery: when a page has finished reacting (to loading, to a click). `load` is too early for a script that
// renders after a fetch, and `networkidle` costs half a second on every page even when nothing is pending. A
// page is settled when its DOM has been still for a moment and none of its document, script, fetch or XHR
// requests is in flight, capped so a long poll or a stream cannot hold a visit.
import type { Page, Request } from 'playwright-core';
import { pageFunction } from '../page-function.js';

const quietSource = `({ quietMs, maxMs }) => new Promise((resolve) => {
  let quiet;
  const done = () => { observer.disconnect(); clearTimeout(quiet); clearTimeout(cap); resolve(true); };
  const observer = new MutationObserver(() => { clearTimeout(quiet); quiet = setTimeout(done, quietMs); });
  observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  quiet = setTimeout(done, quietMs);
  const cap = setTimeout(done, maxMs);
})`;

const domQuiet = pageFunction<(args: { quietMs: number; maxMs: number }) => Promise<boolean>>(quietSource);

const trackedTypes = new Set(['document', 'script', 'fetch', 'xhr']);

/** Counts the page's requests in flight that can still change what it shows. */
export function watchRequests(page: Page): () => number {
  const inFlight = new Set<Request>();
  page.on('request', (request) => {
    if (trackedTypes.has(request.resourceType())) inFlight.add(request);
  });
  const end = (request: Request) => inFlight.delete(request);
  page.on('requestfinished', end);
  page.on('requestfailed', end);
  return () => inFlight.size;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until the DOM has not changed for `quietMs` with no tracked request in flight, at most `maxMs`. A
 * navigation during the wait ends it early: the caller looks at the URL next.
 */
export async function settle(page: Page, pending: () => number, quietMs = 80, maxMs = 1_500): Promise<void> {
  const deadline = Date.now() + maxMs;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) return;
    const still = await page.evaluate(domQuiet, { quietMs, maxMs: left }).catch(() => false);
    if (!still || pending() === 0) return;
    while (pending() > 0 && Date.now() < deadline) await sleep(20);
  }
}
