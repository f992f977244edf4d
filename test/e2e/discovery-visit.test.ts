// Discovery (issue 34): page visits in real Chromium, breadth first (test/support/discovery-loop.ts, no Temporal),
// on the back office under /d/ and on the fixture shop. The ground truth (test/support/back-office-truth.ts and the
// shop's below) is written by hand from what a user sees in those applications, not derived from the fixtures'
// code: every page pattern and every form must be found, and the server's request log must show that nothing was
// submitted but searches, nobody signed out and nothing was deleted.
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserPool } from '../../src/browser/context/pool.js';
import { createBenchPool } from '../../bench/support.js';
import type { DiscoveredForm, VisitedPage } from '../../src/domain/discovery.js';
import { backOfficeForms, backOfficePatterns, forbiddenRequest } from '../support/back-office-truth.js';
import { exploreBreadthFirst } from '../support/discovery-loop.js';
import { shopCredentials, startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';

let apps: FixtureApps;
let pool: BrowserPool;

beforeAll(async () => {
  apps = await startFixtureApps();
  pool = createBenchPool(1);
}, 60_000);

afterAll(async () => {
  await pool?.close();
  await apps?.stop();
});

const path = (url: string) => url.slice(apps.url.length);

/** Runs a discovery in a fresh context; answers its visits and every URL the browser requested. */
async function discover(
  start: string[],
  prepare?: (context: BrowserContext) => Promise<void>,
): Promise<{ visits: VisitedPage[]; browserRequests: string[] }> {
  return pool.withContext({}, async ({ context }) => {
    await prepare?.(context);
    const browserRequests: string[] = [];
    context.on('request', (request) => browserRequests.push(request.url()));
    const visits = await exploreBreadthFirst(context, start, { origin: apps.url, maxPages: 100 });
    return { visits, browserRequests };
  });
}

function formsByPage(visits: VisitedPage[]): Map<string, DiscoveredForm[]> {
  const byPage = new Map<string, DiscoveredForm[]>();
  for (const visit of visits) byPage.set(visit.pattern, [...(byPage.get(visit.pattern) ?? []), ...visit.forms]);
  return byPage;
}

describe('discovery visits on the back office (/d/)', () => {
  let visits: VisitedPage[];
  let browserRequests: string[];
  let serverLog: string[];

  beforeAll(async () => {
    const before = apps.requests().length;
    ({ visits, browserRequests } = await discover([`${apps.url}/d/`]));
    serverLog = apps.requests().slice(before);
  }, 240_000);

  it('finds every page pattern, each visited at most twice, none with an error', () => {
    const patterns = new Set(visits.map((v) => v.pattern));
    expect([...patterns].sort()).toEqual([...backOfficePatterns].sort());
    for (const pattern of patterns) expect(visits.filter((v) => v.pattern === pattern).length).toBeLessThanOrEqual(2);
    expect(visits.filter((v) => v.error !== null || v.status !== 200)).toEqual([]);
    expect(new Set(visits.map((v) => v.url)).size).toBe(visits.length);
  });

  it('finds every form on its page, with its fields, and only those', () => {
    const byPage = formsByPage(visits);
    const found = new Set<string>();
    for (const [page, forms] of byPage) for (const f of forms) found.add(`${page} ${f.method} ${f.action}`);
    const expected = new Set<string>();
    for (const { page, form, fields } of backOfficeForms) {
      const [method, action] = form.split(' ');
      const match = (byPage.get(page) ?? []).find((f) => f.method === method && f.action === action);
      expect(match, `${form} on ${page}`).toBeDefined();
      expect(match!.fields.map((f) => f.label)).toEqual(fields);
      expected.add(`${page} ${form}`);
    }
    // The search form sits in the header of every page: only other forms must be where the list says.
    const unexpected = [...found].filter((f) => !expected.has(f) && !f.endsWith(' get /d/search'));
    expect(unexpected).toEqual([]);
    const search = byPage.get('/d/')!.find((f) => f.action === '/d/search')!;
    expect(search.search).toBe(true);
    expect([...found].filter((f) => !f.endsWith(' get /d/search')).length).toBe(backOfficeForms.length - 1);
  });

  it('keeps a form under one key on every page of its pattern', () => {
    const deletes = visits
      .filter((v) => v.pattern === '/d/orders/{id}')
      .map((v) => v.forms.find((f) => f.action === '/d/orders/{id}/delete')?.key);
    expect(deletes).toHaveLength(2);
    expect(deletes[0]).toBeDefined();
    expect(new Set(deletes).size).toBe(1);
  });

  it('lists sign-out and destructive controls as actions, never as links', () => {
    const actions = visits.flatMap((v) => v.actions);
    const kindOf = (name: string) => new Set(actions.filter((a) => a.name === name).map((a) => a.kind));
    expect(kindOf('Sign out')).toEqual(new Set(['sign-out']));
    expect(kindOf('Log out')).toEqual(new Set(['sign-out']));
    expect(kindOf('Delete order')).toEqual(new Set(['destructive']));
    expect(kindOf('Remove from team')).toEqual(new Set(['destructive']));
    expect(kindOf('Cancel order')).toEqual(new Set(['destructive']));
    expect(kindOf('Archive')).toEqual(new Set(['destructive']));
    expect(kindOf('Create order')).toEqual(new Set(['submit']));
    expect(kindOf('Profile')).toEqual(new Set(['reveal', 'navigate'])); // a settings tab, and a menu item
    const links = visits.flatMap((v) => v.links).map(path);
    expect(links.filter((l) => /logout|remove|\.pdf|\.csv|utm_|docs\.example|mailto/.test(l))).toEqual([]);
  });

  it('submitted nothing but searches, never signed out, deleted or downloaded, never left the origin', () => {
    expect(serverLog.filter((line) => !line.startsWith('GET '))).toEqual([]);
    expect(serverLog.filter((line) => forbiddenRequest.test(line))).toEqual([]);
    const searches = serverLog.filter((line) => line.startsWith('GET /d/search?'));
    expect(searches.length).toBeGreaterThanOrEqual(1);
    expect(browserRequests.filter((url) => !url.startsWith(`${apps.url}/`))).toEqual([]);
  });

  it('operated the header menus and search once, not on every page', () => {
    const operated = visits.flatMap((v) => v.operated ?? []);
    expect(operated.filter((key) => key === 'button|More')).toHaveLength(1);
    expect(operated.filter((key) => key.startsWith('search|'))).toHaveLength(1);
    expect(visits.reduce((n, v) => n + v.actionsUsed, 0)).toBe(operated.length);
  });

  it('operated only controls that reveal, and only search forms', () => {
    // The page's guard would abort a form sent by mistake before the server saw it: the visits' own account
    // of what they pressed shows the judgement itself held.
    const actions = visits.flatMap((v) => v.actions);
    const pressed = visits.flatMap((v) => v.operated ?? []).filter((key) => !key.startsWith('search|'));
    expect(pressed.length).toBeGreaterThanOrEqual(8);
    for (const key of pressed) {
      const kinds = new Set(actions.filter((a) => `${a.role}|${a.name}` === key).map((a) => a.kind));
      expect([key, [...kinds]]).toEqual([key, ['reveal']]);
    }
    const searched = visits.flatMap((v) => v.operated ?? []).filter((key) => key.startsWith('search|'));
    const searchKeys = new Set(visits.flatMap((v) => v.forms.filter((f) => f.search).map((f) => `search|${f.key}`)));
    for (const key of searched) expect(searchKeys).toContain(key);
  });
});

describe('discovery visits on the fixture shop', () => {
  it('signed out: the index, the sign-in page and the todo app, with their forms, and no sign-in sent', async () => {
    const before = apps.requests().length;
    const { visits } = await discover([`${apps.url}/`]);
    const serverLog = apps.requests().slice(before);
    expect(new Set(visits.map((v) => v.pattern))).toEqual(new Set(['/', '/shop/login', '/todo/']));
    const forms = formsByPage(visits);
    expect(forms.get('/shop/login')!.map((f) => [f.name, f.fields.map((x) => x.label), f.submit])).toEqual([
      ['Sign in', ['Email', 'Password'], 'Sign in'],
    ]);
    expect(forms.get('/todo/')!.map((f) => [f.fields.map((x) => x.label), f.submit, f.search])).toEqual([
      [['New todo'], 'Add', false],
    ]);
    expect(serverLog.filter((line) => !line.startsWith('GET '))).toEqual([]);
  }, 120_000);

  it('signed in: products and cart, and no order placed', async () => {
    let before = 0;
    const { visits } = await discover([`${apps.url}/shop/`], async (context) => {
      const response = await context.request.post(`${apps.url}/shop/api/login`, { data: shopCredentials });
      expect(response.status()).toBe(200);
      before = apps.requests().length;
    });
    const serverLog = apps.requests().slice(before);
    expect(new Set(visits.map((v) => v.pattern))).toEqual(new Set(['/shop/products', '/shop/cart']));
    const products = visits.find((v) => v.pattern === '/shop/products')!;
    expect(products.title).toBe('Products · Shop');
    expect(products.headings).toEqual(['Products']);
    expect(products.actions).toContainEqual({ role: 'button', name: 'Add Coffee mug to cart', kind: 'other' });
    expect(serverLog.filter((line) => !line.startsWith('GET '))).toEqual([]);
  }, 120_000);
});
