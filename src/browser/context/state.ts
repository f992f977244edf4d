// Browser state handed from a resume-from dependency to its dependent: cookies, localStorage and
// sessionStorage per origin, and where the dependency ended.
import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import type { BrowserState } from '../../domain/steps.js';
import { pageFunction } from '../page-function.js';

type StorageItem = { name: string; value: string };

/** Set in a tab's sessionStorage once it has been seeded, so later documents of that tab keep what the app wrote. */
const seededMarker = '__proctor_session_seeded__';

// Both run in the page, so they are source text (see page-function.ts).

/** The tab's origin and its sessionStorage items, without the seeding marker. */
const readSessionStorage = pageFunction<
  (marker: string) => { origin: string; items: Array<[string, string]> }
>(`(marker) => {
  const items = [];
  for (let i = 0; i < sessionStorage.length; i++) {
    const name = sessionStorage.key(i);
    if (name !== null && name !== marker) items.push([name, sessionStorage.getItem(name) ?? '']);
  }
  return { origin: location.origin, items };
}`);

/** At document start: seeds the origin's items once per tab (the marker keeps later documents from re-seeding). */
const seedOnDocumentStart = pageFunction<
  (arg: { origins: Array<{ origin: string; items: StorageItem[] }>; marker: string }) => void
>(`({ origins, marker }) => {
  const seed = origins.find((o) => o.origin === location.origin);
  if (!seed) return;
  try {
    if (sessionStorage.getItem(marker) !== null) return;
    for (const { name, value } of seed.items) sessionStorage.setItem(name, value);
    sessionStorage.setItem(marker, '1');
  } catch {
    // Storage can be disabled (sandboxed frames); the app will see it empty either way.
  }
}`);

export async function captureBrowserState(context: BrowserContext, page: Page): Promise<BrowserState> {
  const storage = await context.storageState();
  const origins = new Map<string, { localStorage: StorageItem[]; sessionStorage: Map<string, string> }>();
  const entry = (origin: string) => {
    let found = origins.get(origin);
    if (!found) origins.set(origin, (found = { localStorage: [], sessionStorage: new Map() }));
    return found;
  };
  for (const { origin, localStorage } of storage.origins)
    entry(origin).localStorage = localStorage.map(({ name, value }) => ({ name, value }));

  // sessionStorage lives per tab: read every open tab, the job's own page last so its values win.
  const pages = [...context.pages().filter((p) => p !== page), page];
  for (const tab of pages) {
    if (tab.isClosed()) continue;
    const read = await tab
      .mainFrame()
      .evaluate(readSessionStorage, seededMarker)
      // A tab mid-navigation or on an opaque origin has nothing to hand on.
      .catch(() => undefined);
    if (!read || read.origin === 'null' || read.items.length === 0) continue;
    const session = entry(read.origin).sessionStorage;
    for (const [name, value] of read.items) session.set(name, value);
  }

  return {
    cookies: storage.cookies.map(({ name, value, domain, path, expires, httpOnly, secure, sameSite }) => ({
      name,
      value,
      domain,
      path,
      expires,
      httpOnly,
      secure,
      sameSite,
    })),
    origins: [...origins].map(([origin, { localStorage, sessionStorage }]) => ({
      origin,
      localStorage,
      sessionStorage: [...sessionStorage].map(([name, value]) => ({ name, value })),
    })),
    url: page.url(),
  };
}

/**
 * The part of a state Playwright restores itself when the context is created: cookies, and localStorage
 * written before any page of the job runs (so nothing the app writes later is ever overwritten).
 */
export function contextStorageState(state: BrowserState): NonNullable<BrowserContextOptions['storageState']> {
  return {
    cookies: state.cookies,
    origins: state.origins
      .filter((o) => o.localStorage.length > 0)
      .map(({ origin, localStorage }) => ({ origin, localStorage })),
  };
}

/**
 * sessionStorage has no Playwright API: seed it at document start of the first document of each origin in
 * each tab, before the app's scripts run; the marker keeps later documents of that tab from re-seeding.
 */
export async function seedSessionStorage(context: BrowserContext, state: BrowserState): Promise<void> {
  const origins = state.origins
    .filter((o) => o.sessionStorage.length > 0)
    .map(({ origin, sessionStorage }) => ({ origin, items: sessionStorage }));
  if (origins.length === 0) return;
  await context.addInitScript(seedOnDocumentStart, { origins, marker: seededMarker });
}
