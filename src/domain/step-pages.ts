// Which page each recorded step acted on (issue 34's coverage map). Burn-in records it on the step (`at`); steps
// recorded before that are walked: a navigation sets the page, an URL assertion confirms it, anything else stays on
// the page before it, and says so. Pure: the coverage computation and the API read it.
import { configReferences, type Step, type StepAction } from './steps.js';

/** Steps that bring a page up by themselves: their page is the one they brought up, not the one they left. */
export const pageBringingActions: ReadonlySet<StepAction> = new Set(['navigate', 'go_back', 'reload', 'open_link']);

/** Steps that act on no page (a mail read, an API call, a tab switch or close): burn-in records no `at` for them. */
export const pagelessActions: ReadonlySet<StepAction> = new Set([
  'wait_for_email',
  'http_request',
  'switch_tab',
  'close_tab',
]);

/**
 * A page as `at` names it: the path and query of `url` when it is on `baseUrl`'s origin (the fragment dropped: the
 * same page), its whole URL (fragment dropped) when it is on another origin, so it never reads as a page of the
 * application. undefined for a blank tab or what is not a URL.
 */
export function pageAt(url: string, baseUrl: string): string | undefined {
  let target: URL;
  let base: URL;
  try {
    base = new URL(baseUrl);
    target = new URL(url, base);
  } catch {
    return undefined;
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return undefined;
  if (target.origin === base.origin) return `${target.pathname}${target.search}`;
  target.hash = '';
  return target.toString();
}

/** How a step's page was found. */
export type StepPageSource =
  | 'at' // recorded by burn-in
  | 'navigate' // the navigation's own URL
  | 'assert_url' // an URL assertion: confirms the page, or names it when it is a path the page was not known to be
  | 'start' // the test's start page, no step having moved it yet
  | 'previous' // the page of the step before on the same tab
  | 'unknown'; // nothing says: a mail's link opened, Back past the first page, a new tab, an URL the walk contradicts

export interface StepPage {
  /** Path and query (see `pageAt`), null when it cannot be known from the steps. */
  page: string | null;
  /** False when the steps say for certain where it was (`at`, a navigation, an URL assertion on a page known for certain). */
  inferred: boolean;
  source: StepPageSource;
}

interface Tab {
  page: string | null;
  /** Pages this tab was on before, for a Back without `at`. */
  back: (string | null)[];
  /**
   * The page is known for certain: set by `at` or a navigation, and no step since could have left it. Only then does
   * an URL assertion confirm it (the assertion checks that the URL contains its value: `/orders` passes on `/orders/7`).
   */
  sure: boolean;
}

/** Steps that may leave the page by themselves (a link clicked, a form submitted by Enter, a select that navigates). */
const mayLeave: ReadonlySet<StepAction> = new Set(['click', 'dblclick', 'press', 'drag', 'select', 'check', 'uncheck']);

/**
 * The page of each step, in order. `startUrl` is where the test starts (a resumed test: where its dependency ended);
 * `baseUrl` (default `startUrl`) resolves relative navigations and decides what is on the application's origin.
 */
export function pagesOfSteps(steps: readonly Step[], startUrl: string, baseUrl: string = startUrl): StepPage[] {
  const tabs: Tab[] = [{ page: pageAt(startUrl, baseUrl) ?? null, back: [], sure: false }];
  let opened = 0; // tabs opened so far: a step with `opensPage` opens tab `opened + 1`
  let started = true; // the first tab is still on the start page, untouched
  const moveTo = (tab: Tab, page: string | null) => {
    if (tab.page !== page) tab.back.push(tab.page);
    tab.page = page;
  };
  return steps.map((step) => {
    const index = step.page ?? 0;
    const tab = (tabs[index] ??= { page: null, back: [], sure: false });
    const carried = (): StepPage =>
      tab.page === null
        ? { page: null, inferred: true, source: 'unknown' }
        : { page: tab.page, inferred: true, source: index === 0 && started ? 'start' : 'previous' };
    let result: StepPage;
    if (step.at !== undefined) {
      const page = pageAt(step.at, baseUrl) ?? null;
      // Back's page is the one it went back to: the history below it stays.
      if (step.action === 'go_back') tab.back.pop();
      else moveTo(tab, page);
      tab.page = page;
      tab.sure = page !== null;
      result = { page, inferred: false, source: 'at' };
    } else if (step.action === 'navigate') {
      const value = step.value ?? '';
      const page = configReferences(value).length > 0 ? null : (pageAt(value, baseUrl) ?? null);
      moveTo(tab, page);
      tab.sure = page !== null;
      result =
        page === null ? { page, inferred: true, source: 'unknown' } : { page, inferred: false, source: 'navigate' };
    } else if (step.action === 'go_back') {
      const page = tab.back.length > 0 ? tab.back.pop()! : null;
      tab.page = page;
      tab.sure = false;
      result =
        page === null ? { page, inferred: true, source: 'unknown' } : { page, inferred: true, source: 'previous' };
    } else if (step.action === 'open_link') {
      moveTo(tab, null);
      tab.sure = false;
      result = { page: null, inferred: true, source: 'unknown' };
    } else if (step.action === 'assert_url') {
      result = assertedPage(tab, step.value ?? '', baseUrl, moveTo);
    } else {
      result = carried();
    }
    if (mayLeave.has(step.action)) tab.sure = false;
    if (index === 0 && step.action !== 'wait_for_email' && step.action !== 'http_request') started = false;
    if (step.opensPage) tabs[++opened] = { page: null, back: [], sure: false };
    return result;
  });
}

// An URL assertion checks that the URL contains its value: it confirms a page known for certain that contains it
// (`/orders` also passes on `/orders/7`, so it cannot tell which on its own). A page not known for certain that
// contains it stays, inferred. A path it does not contain is where the test must be now (the walk missed a move),
// inferred; anything else contradicts the walk, and the page is unknown.
function assertedPage(
  tab: Tab,
  value: string,
  baseUrl: string,
  moveTo: (tab: Tab, page: string | null) => void,
): StepPage {
  const current = tab.page;
  if (current !== null && value && current.includes(value))
    return { page: current, inferred: !tab.sure, source: 'assert_url' };
  const named =
    /^(\/|https?:\/\/)/.test(value) && configReferences(value).length === 0 ? pageAt(value, baseUrl) : undefined;
  tab.sure = false;
  if (named !== undefined) {
    moveTo(tab, named);
    return { page: named, inferred: true, source: 'assert_url' };
  }
  moveTo(tab, null);
  return { page: null, inferred: true, source: 'unknown' };
}
