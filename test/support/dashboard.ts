import type { Server } from 'node:http';
import { AxeBuilder } from '@axe-core/playwright';
import { serve } from '@hono/node-server';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { chromiumFlags } from '../../src/browser/context/pool.js';
import { loadPrograms } from '../../src/programs.js';
import { freePort } from './net.js';

// The dashboard as a person uses it: the real app over HTTP, the project's Chromium, nothing but loopback.

const localHosts = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** A loopback address for the app, known before the app is built (its PROCTOR_APP_URL). */
export async function reserveAppUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}

export interface DashboardBrowser {
  /** The app's origin, no trailing slash. */
  url: string;
  browser: Browser;
  /** Signed in (after `signIn`): its cookies are the session. */
  context: BrowserContext;
  page: Page;
  /** Every request the pages tried to make to anywhere but loopback (all were refused). */
  blocked: string[];
  /** Signs in through the real form: /login, the token typed into "API token", "Sign in". */
  signIn(token: string): Promise<void>;
  /** A second person: a page in a context of its own, signed in with `token` (another project's, say). */
  signInElsewhere(token: string): Promise<Page>;
  /** A page signed in as `context` is, in a context of its own with these options (a phone's viewport, no JavaScript). */
  view(options: BrowserContextOptions): Promise<Page>;
  /** Bytes of HTML and JavaScript one load of `path` transfers, measured in a new page of a cache-less context with the same session. */
  transferredBytes(path: string): Promise<{ html: number; js: number; total: number; consoleErrors: string[] }>;
  close(): Promise<void>;
}

async function isolatedContext(
  browser: Browser,
  blocked: string[],
  storageState?: Awaited<ReturnType<BrowserContext['storageState']>>,
  options: BrowserContextOptions = {},
): Promise<BrowserContext> {
  const context = await browser.newContext({ ...options, storageState });
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (!/^https?:$/.test(url.protocol) || localHosts.has(url.hostname)) return route.continue();
    blocked.push(url.href);
    return route.abort('blockedbyclient');
  });
  return context;
}

/**
 * Serves `app` at `url` (from `reserveAppUrl`) and opens the project's Chromium on it. Every non-local request
 * is refused twice over: name resolution maps every host but loopback to nothing (service workers included),
 * and the context's route handler aborts and records the rest.
 */
export async function openDashboard(
  app: { fetch: (request: Request) => Response | Promise<Response> },
  url: string,
): Promise<DashboardBrowser> {
  const port = Number(new URL(url).port);
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => resolve(s as Server));
  });
  const browser = await chromium.launch({
    executablePath: loadPrograms().chromium,
    args: [...chromiumFlags, '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost'],
    chromiumSandbox: false,
  });
  const blocked: string[] = [];
  const context = await isolatedContext(browser, blocked);
  const page = await context.newPage();

  return {
    url,
    browser,
    context,
    page,
    blocked,
    async signIn(token) {
      await page.goto(`${url}/login`);
      await page.getByLabel('API token').fill(token);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((u) => !u.pathname.endsWith('/login'));
    },
    async signInElsewhere(token) {
      const elsewhere = await (await isolatedContext(browser, blocked)).newPage();
      await elsewhere.goto(`${url}/login`);
      await elsewhere.getByLabel('API token').fill(token);
      await elsewhere.getByRole('button', { name: 'Sign in' }).click();
      await elsewhere.waitForURL((u) => !u.pathname.endsWith('/login'));
      return elsewhere;
    },
    async view(options) {
      return (await isolatedContext(browser, blocked, await context.storageState(), options)).newPage();
    },
    async transferredBytes(path) {
      const fresh = await isolatedContext(browser, blocked, await context.storageState());
      try {
        const probe = await fresh.newPage();
        const responses: Promise<{ type: string; bytes: number }>[] = [];
        // A script or style the Content-Security-Policy refused shows up here.
        const consoleErrors: string[] = [];
        probe.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
        probe.on('requestfinished', (request) => {
          responses.push(
            request
              .sizes()
              .then((s) => ({ type: request.resourceType(), bytes: s.responseBodySize + s.responseHeadersSize })),
          );
        });
        await probe.goto(`${url}${path}`, { waitUntil: 'load' });
        await probe.waitForLoadState('networkidle');
        const all = await Promise.all(responses);
        const sum = (types: string[]) => all.filter((r) => types.includes(r.type)).reduce((n, r) => n + r.bytes, 0);
        const html = sum(['document']);
        const js = sum(['script', 'fetch', 'xhr']);
        return { html, js, total: html + js, consoleErrors };
      } finally {
        await fresh.close();
      }
    },
    async close() {
      await browser.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** axe-core on the page as it is now: no serious or critical violation. */
export async function expectAccessible(page: Page): Promise<void> {
  // A click on a link returns once the navigation started; axe on a document still being replaced finds none
  // (the clean-clone run failed so: "Cannot read properties of null (reading 'documentElement')").
  await page.waitForLoadState('load');
  const results = await new AxeBuilder({ page }).analyze();
  const severe = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(severe, `accessibility of ${page.url()}`).toEqual([]);
}
