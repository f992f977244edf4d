// Discovery (issue 34): one page visit in real Chromium. Opens the URL in a new page of the given context,
// reads it, then operates what only reveals (menus, tabs, disclosures, dialog openers) one at a time and submits
// its search forms with a harmless query, reading what each shows, up to `maxActions`. It never presses a
// sign-out, destructive or submit control and never follows a link: links are returned for the workflow to
// visit as pages of their own. Guards hold even if a judgement is wrong: a navigation that is not a GET, that
// leaves the origin or that goes to a sign-out or destructive URL is aborted, so is any DELETE, PUT or PATCH a
// script sends, and a page's confirm() is dismissed.
import type { BrowserContext, Page, Route, Request } from 'playwright-core';
import type { VisitedPage } from '../../domain/discovery.js';
import { isUnsafeUrl } from '../../domain/discovery-safety.js';
import { normalizeUrl, patternOf } from '../../domain/page-patterns.js';
import { Findings, judge, type JudgedControl, type JudgedForm, type JudgedPage } from './findings.js';
import { markerAttribute, readPage } from './read-page.js';
import { settle, watchRequests } from './settle.js';

export interface VisitOptions {
  /** The application's origin (`https://app.example.com`); nothing outside it is visited or kept. */
  origin: string;
  /** For the whole visit: the page load, then operating controls until it is spent (what was found is kept). */
  timeoutMs: number;
  /** Controls operated at most on this visit (reveal controls and searches). */
  maxActions: number;
  /**
   * Controls (`role|name`) and search forms (`search|<form key>`) already operated elsewhere in this discovery,
   * e.g. the header's menu on every page: not operated again (the visit's `operated` says what it operated).
   */
  skip?: readonly string[];
}

/** Clicks and waits for a click's effect: short, so one control that does nothing costs little. */
const clickTimeoutMs = 2_000;

export async function visitPage(context: BrowserContext, url: string, options: VisitOptions): Promise<VisitedPage> {
  const started = Date.now();
  const deadline = started + options.timeoutMs;
  const requested = normalizeUrl(url, options.origin) ?? url;
  const findings = new Findings(options.origin);
  const operated: string[] = [];
  const result: VisitedPage = {
    url: requested,
    finalUrl: requested,
    pattern: patternOf(requested),
    status: 0,
    title: '',
    headings: [],
    forms: [],
    actions: [],
    links: [],
    actionsUsed: 0,
    error: null,
  };
  const page = await context.newPage();
  try {
    await guardPage(page, options.origin);
    const pending = watchRequests(page);
    const response = await page.goto(requested, { waitUntil: 'load', timeout: options.timeoutMs });
    result.status = response?.status() ?? 0;
    await settle(page, pending);
    const landed = page.url();
    const finalUrl = normalizeUrl(landed, options.origin);
    result.finalUrl = finalUrl ?? landed;
    result.pattern = patternOf(result.finalUrl);
    if (!finalUrl) {
      // Redirected off the origin (a single sign-on page, say): recorded, not read.
      result.error = `left the origin for ${new URL(landed).origin}`;
      return result;
    }
    findings.addSelf(requested);
    findings.addSelf(finalUrl);
    const first = await readPage(page);
    result.title = first.title;
    result.headings = first.headings;
    let state = judge(first, options.origin);
    findings.add(state);

    const explorer = new Explorer(page, pending, finalUrl, options, findings, new Set(options.skip ?? []), deadline);
    state = await explorer.searches(state, searchQuery(first.headings, first.title));
    await explorer.reveals(state);
    result.actionsUsed = explorer.used;
    operated.push(...explorer.operated);
  } catch (err) {
    result.error = err instanceof Error ? err.message.split('\n')[0]! : String(err);
  } finally {
    await page.close().catch(() => undefined);
  }
  Object.assign(result, findings.result());
  if (operated.length) result.operated = operated;
  return result;
}

/** A word of the page itself, so a search shows real results; "test" when the page has none. */
function searchQuery(headings: string[], title: string): string {
  const word = `${headings[0] ?? ''} ${title}`.match(/\p{L}{3,}/u)?.[0];
  return word ? word.toLowerCase() : 'test';
}

/** Methods that change what a server holds; a page's script may send them on a click the explorer judged harmless. */
const writingMethods = new Set(['DELETE', 'PUT', 'PATCH']);

/**
 * Aborts non-GET navigations (a form sent by mistake), navigations off the origin or to a sign-out or destructive
 * URL (a search form's `formaction`, a script's redirect), and any DELETE, PUT or PATCH a script sends (Turbo's
 * `data-turbo-method`, htmx); dismisses dialogs and popups.
 */
async function guardPage(page: Page, origin: string): Promise<void> {
  const allowedOrigin = new URL(origin).origin;
  await page.route('**/*', async (route: Route, request: Request) => {
    const method = request.method();
    if (writingMethods.has(method)) return route.abort('blockedbyclient');
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) {
      const url = request.url();
      if ((method !== 'GET' && method !== 'HEAD') || new URL(url).origin !== allowedOrigin || isUnsafeUrl(url)) {
        return route.abort('blockedbyclient');
      }
    }
    return route.fallback();
  });
  page.on('dialog', (dialog) => void dialog.dismiss().catch(() => undefined));
  page.on('popup', (popup) => void popup.close().catch(() => undefined));
}

class Explorer {
  used = 0;
  readonly operated: string[] = [];

  constructor(
    private readonly page: Page,
    private readonly pending: () => number,
    private readonly home: string,
    private readonly options: VisitOptions,
    private readonly findings: Findings,
    private readonly done: Set<string>,
    private readonly deadline: number,
  ) {}

  private canAct(): boolean {
    return this.used < this.options.maxActions && Date.now() < this.deadline - clickTimeoutMs;
  }

  private note(key: string): void {
    this.done.add(key);
    this.operated.push(key);
    this.used += 1;
  }

  /** Submits each visible search form once, with `query`; the results page becomes a link. */
  async searches(state: JudgedPage, query: string): Promise<JudgedPage> {
    const forms = state.forms.filter((f) => f.form.search && f.raw.visible);
    for (const form of forms) {
      const key = `search|${form.form.key}`;
      if (!this.canAct() || this.done.has(key)) continue;
      this.note(key);
      await this.search(form, query);
      state = await this.read();
    }
    return state;
  }

  private async search(form: JudgedForm, query: string): Promise<void> {
    const scope = this.page.locator(`[${markerAttribute}="${form.raw.marker}"]`);
    const field = scope
      .locator('input:not([type=hidden]):not([type=submit]):not([type=button]):not([type=checkbox]):not([type=radio])')
      .first();
    try {
      await field.fill(query, { timeout: clickTimeoutMs });
      await field.press('Enter', { timeout: clickTimeoutMs });
    } catch {
      return;
    }
    await this.afterAction();
  }

  /** Operates each reveal control once (the latest read decides what is there), reading what it shows. */
  async reveals(state: JudgedPage): Promise<void> {
    for (;;) {
      if (!this.canAct()) return;
      const next = this.nextReveal(state);
      if (!next) return;
      this.note(next.key);
      try {
        await this.page.locator(`[${markerAttribute}="${next.raw.marker}"]`).click({ timeout: clickTimeoutMs });
      } catch {
        state = await this.read();
        continue;
      }
      if (await this.afterAction()) {
        state = await this.read();
        continue;
      }
      this.findings.add(await this.read());
      state = await this.close();
    }
  }

  private nextReveal(state: JudgedPage): JudgedControl | undefined {
    return state.controls.find(
      (c) =>
        c.action.kind === 'reveal' &&
        c.raw.visible &&
        !c.raw.selected &&
        c.raw.expanded !== 'true' &&
        !this.done.has(c.key),
    );
  }

  /**
   * Waits for the effect of a click or a submit. When it navigated, records where it went and comes back to the
   * visited page; answers whether it did.
   */
  private async afterAction(): Promise<boolean> {
    await this.page.waitForLoadState('load', { timeout: clickTimeoutMs }).catch(() => undefined);
    await settle(this.page, this.pending);
    const now = normalizeUrl(this.page.url(), this.options.origin);
    if (now === this.home) return false;
    if (now) this.findings.addLink(now);
    await this.goHome();
    return true;
  }

  private async goHome(): Promise<void> {
    const back = await this.page.goBack({ waitUntil: 'load', timeout: clickTimeoutMs * 2 }).catch(() => null);
    if (!back || normalizeUrl(this.page.url(), this.options.origin) !== this.home) {
      await this.page.goto(this.home, { waitUntil: 'load', timeout: clickTimeoutMs * 2 });
    }
    await settle(this.page, this.pending);
  }

  /** Closes what the last control opened: Escape, and a reload when a modal still covers the page. */
  private async close(): Promise<JudgedPage> {
    await this.page.keyboard.press('Escape').catch(() => undefined);
    await settle(this.page, this.pending, 60, 500);
    const covered = await this.page
      .locator('dialog[open]:modal, [aria-modal="true"]')
      .filter({ visible: true })
      .count()
      .catch(() => 0);
    if (covered > 0) {
      await this.page.goto(this.home, { waitUntil: 'load', timeout: clickTimeoutMs * 2 });
      await settle(this.page, this.pending);
    }
    return this.read();
  }

  private async read(): Promise<JudgedPage> {
    const state = judge(await readPage(this.page), this.options.origin);
    this.findings.add(state);
    return state;
  }
}
