import { describe, expect, it } from 'vitest';
import { DiscoveryState, maxActionsPerVisit, type PlannedVisit } from '../../workflows/discovery-state.js';
import { frontierLinks, type FrontierEntry, type VisitOutcome } from '../../workflows/discovery-contract.js';
import type { DiscoveryBudget } from '../../src/domain/discovery.js';
import { intentMatcher } from '../../src/domain/discovery-intent.js';

// The discovery workflow's state and decisions outside a workflow: breadth-first order, the per-pattern limit,
// each limit of the budget, and the continue-as-new carry. The e2e test (test/e2e/discovery.test.ts) drives it
// through the real workflow.

const origin = 'https://shop.test';
const entry = (path: string, pattern = path): FrontierEntry => ({ url: `${origin}${path}`, pattern });
const outcome = (visit: PlannedVisit, links: FrontierEntry[], actionsUsed = 0): VisitOutcome => ({
  url: visit.url,
  pattern: visit.pattern,
  links,
  actionsUsed,
  visited: true,
});
const budget = (b: Partial<DiscoveryBudget> = {}): DiscoveryBudget => ({
  pages: 100,
  actions: 1000,
  minutes: 10,
  ...b,
});
const t0 = 1_000_000;

/** A site as links per path; visits everything the state plans, `slots` at a time, and returns the visit order. */
function explore(state: DiscoveryState, site: Record<string, FrontierEntry[]>, slots = 1, actionsPerVisit = 0) {
  const order: string[] = [];
  for (let planned = state.take(slots, t0); planned.length > 0; planned = state.take(slots, t0)) {
    for (const visit of planned) {
      order.push(visit.url.slice(origin.length));
      state.visited(visit, outcome(visit, site[visit.url.slice(origin.length)] ?? [], actionsPerVisit));
    }
  }
  return order;
}

const shop: Record<string, FrontierEntry[]> = {
  '/': [entry('/products'), entry('/about')],
  '/products': [
    entry('/products/1', '/products/{id}'),
    entry('/products/2', '/products/{id}'),
    entry('/products/3', '/products/{id}'),
    entry('/cart'),
  ],
  '/about': [entry('/'), entry('/contact')],
  '/products/1': [entry('/products'), entry('/products/4', '/products/{id}')],
};

const pathOf = (i: number) => (i === 0 ? '/' : i % 3 === 0 ? `/items/${i}` : `/p${i}`);
const patternOfPath = (path: string) => (path.startsWith('/items/') ? '/items/{id}' : path);

/** 200 random sites (links per path, some to item pages of one pattern) with a pages budget and a per-pattern limit. */
function* randomSites() {
  let seed = 7;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  for (let site = 0; site < 200; site++) {
    const size = 5 + Math.floor(random() * 60);
    const links: Record<string, FrontierEntry[]> = {};
    for (let i = 0; i < size; i++) {
      const count = Math.floor(random() * 12);
      links[pathOf(i)] = Array.from({ length: count }, () => {
        const path = pathOf(Math.floor(random() * size));
        return entry(path, patternOfPath(path));
      });
    }
    yield { site, links, pages: 1 + Math.floor(random() * 30), perPattern: 1 + Math.floor(random() * 3) };
  }
}

describe('DiscoveryState', () => {
  it('visits breadth first, each URL once, at most `perPattern` URLs of one pattern', () => {
    const state = new DiscoveryState(budget(), 2);
    state.start(t0, entry('/'), null);
    expect(explore(state, shop)).toEqual([
      '/',
      '/products',
      '/about',
      '/products/1',
      '/products/2',
      '/cart',
      '/contact',
    ]);
    expect(state.stopReason(t0)).toBe('explored');
    expect(state.pages).toBe(7);
  });

  it('with one URL per pattern, a thousand detail pages cost one visit', () => {
    const many = { '/': Array.from({ length: 1000 }, (_, i) => entry(`/orders/${i}`, '/orders/{id}')) };
    const state = new DiscoveryState(budget({ pages: 5000 }), 1);
    state.start(t0, entry('/'), null);
    expect(explore(state, many)).toEqual(['/', '/orders/0']);
  });

  it('never has more visits in flight than the pages budget allows, and stops at it', () => {
    const state = new DiscoveryState(budget({ pages: 3 }), 2);
    state.start(t0, entry('/'), null);
    const [home] = state.take(5, t0);
    state.visited(home!, outcome(home!, shop['/']!.concat(entry('/cart'), entry('/help'))));
    const planned = state.take(5, t0);
    expect(planned).toHaveLength(2);
    expect(state.take(5, t0)).toEqual([]);
    expect(state.stopReason(t0)).toBeNull(); // visits in flight
    for (const visit of planned) state.visited(visit, outcome(visit, []));
    expect(state.stopReason(t0)).toBe('pages');
    expect(state.pages).toBe(3);
  });

  it('shares the actions budget out before the visits run, so their sum never passes it, and stops when it is spent', () => {
    const state = new DiscoveryState(budget({ actions: 30 }), 2);
    state.start(t0, entry('/'), null);
    const [home] = state.take(1, t0);
    expect(home!.maxActions).toBe(maxActionsPerVisit);
    state.visited(home!, outcome(home!, shop['/']!, 4));
    const planned = state.take(3, t0);
    expect(planned.map((v) => v.maxActions)).toEqual([25, 1]);
    expect(planned.reduce((sum, v) => sum + v.maxActions, 4)).toBeLessThanOrEqual(30);
    state.visited(planned[0]!, outcome(planned[0]!, [entry('/x')], 25));
    state.visited(planned[1]!, outcome(planned[1]!, [], 1));
    expect(state.actions).toBe(30);
    expect(state.take(3, t0)).toEqual([]);
    expect(state.stopReason(t0)).toBe('actions');
  });

  it('launches nothing once the minutes are over, and says so', () => {
    const state = new DiscoveryState(budget({ minutes: 2 }), 2);
    state.start(t0, entry('/'), null);
    expect(state.msLeft(t0 + 60_000)).toBe(60_000);
    expect(state.take(1, t0 + 120_000)).toEqual([]);
    expect(state.stopReason(t0 + 120_000)).toBe('minutes');
    expect(state.stopReason(t0 + 119_999)).toBeNull();
  });

  it('a visit that failed for good counts as a page and is not planned again', () => {
    const state = new DiscoveryState(budget(), 2);
    state.start(t0, entry('/'), null);
    const [home] = state.take(1, t0);
    state.failed(home!);
    expect(state.pages).toBe(1);
    expect(state.inFlight).toBe(0);
    expect(state.take(1, t0)).toEqual([]);
    expect(state.stopReason(t0)).toBe('explored');
  });

  it('continues as new with its frontier and counters: the next run visits what is left, nothing again', () => {
    const first = new DiscoveryState(budget({ pages: 6 }), 2);
    first.start(t0, entry('/'), 'discoveries/disc_x/state.json');
    const [home] = first.take(1, t0);
    first.visited(home!, outcome(home!, shop['/']!, 3));
    const [products] = first.take(1, t0);
    first.visited(products!, outcome(products!, shop['/products']!));
    const carry = first.carry(1);
    expect(carry).toMatchObject({ pages: 2, actions: 3, startedAtMs: t0, stateKey: 'discoveries/disc_x/state.json' });
    expect(carry.frontier.map((e) => e.url.slice(origin.length))).toEqual([
      '/about',
      '/products/1',
      '/products/2',
      '/cart',
    ]);
    // Through JSON, as Temporal hands it over.
    const next = new DiscoveryState(budget({ pages: 6 }), 2);
    next.restore(JSON.parse(JSON.stringify(carry)), [home!.url, products!.url]);
    expect(next.startedHere).toBe(0);
    expect(explore(next, shop)).toEqual(['/about', '/products/1', '/products/2', '/cart']);
    // The per-pattern count came along: /products/4 is a third URL of /products/{id}. The pages budget bound too.
    expect(next.pages).toBe(6);
    expect(next.stopReason(t0)).toBe('pages');
    expect(next.stateKey).toBe('discoveries/disc_x/state.json');
  });

  // The frontier holds no more than the pages budget can still visit, so a site with a million links keeps the
  // state and the continue-as-new carry small; what is visited, in what order, and why it stops are those of a
  // plain breadth-first walk that keeps every link (the reference below), on generated sites.
  it('keeps the frontier within the pages left, and visits and stops as an unbounded breadth-first walk would', () => {
    for (const { site, links, pages, perPattern } of randomSites()) {
      // Reference: every admitted link kept, visits until the queue is empty or the pages budget is spent.
      const queue = [entry('/')];
      const admitted = new Set([queue[0]!.url]);
      const counts = new Map([['/', 1]]);
      const expected: string[] = [];
      while (queue.length > 0 && expected.length < pages) {
        const next = queue.shift()!;
        expected.push(next.url.slice(origin.length));
        for (const link of links[next.url.slice(origin.length)] ?? []) {
          const n = counts.get(link.pattern) ?? 0;
          if (admitted.has(link.url) || n >= perPattern) continue;
          admitted.add(link.url);
          counts.set(link.pattern, n + 1);
          queue.push(link);
        }
      }
      const expectedStop = queue.length === 0 ? 'explored' : 'pages';

      // The workflow as it runs, handed every link of a page, and handed only `frontierLinks` of them (what the
      // visit activity sends): both walk as the reference does.
      for (const trim of [false, true]) {
        const state = new DiscoveryState(budget({ pages }), perPattern);
        state.start(t0, entry('/'), null);
        const order: string[] = [];
        for (let planned = state.take(1, t0); planned.length > 0; planned = state.take(1, t0)) {
          const visit = planned[0]!;
          order.push(visit.url.slice(origin.length));
          const found = links[visit.url.slice(origin.length)] ?? [];
          state.visited(visit, outcome(visit, trim ? frontierLinks(found, perPattern) : found));
          expect(state.carry(0).frontier.length).toBeLessThanOrEqual(pages - state.pages);
        }
        const stop = state.stopReason(t0);
        expect({ site, trim, order, stop }).toEqual({ site, trim, order: expected, stop: expectedStop });
      }
    }
  });

  it('with an intent, visits the pages it asks about first, making room for them within the pages budget', () => {
    const site: Record<string, FrontierEntry[]> = {
      '/': [entry('/products'), entry('/cart'), ...Array.from({ length: 20 }, (_, i) => entry(`/section${i}`))],
      '/products': [entry('/products/1', '/products/{id}')],
      '/cart': [entry('/checkout')],
      '/checkout': [entry('/checkout/shipping'), entry('/checkout/payment')],
    };
    const walk = (intent?: string) => {
      const state = new DiscoveryState(budget({ pages: 6 }), 2, intent ? intentMatcher(intent) : undefined);
      state.start(t0, entry('/'), null);
      return { order: explore(state, site), stop: state.stopReason(t0) };
    };
    expect(walk()).toEqual({
      order: ['/', '/products', '/cart', '/section0', '/section1', '/section2'],
      stop: 'pages',
    });
    expect(walk('the checkout')).toEqual({
      order: ['/', '/products', '/cart', '/checkout', '/checkout/shipping', '/checkout/payment'],
      stop: 'pages',
    });
    // An intent no URL answers changes nothing.
    expect(walk('the wishlist')).toEqual(walk());
  });

  it('with an intent, on random sites: each page once, within budget and limits, reached by a link, wanted first', () => {
    for (const { site, links, pages, perPattern } of randomSites()) {
      const wanted = (url: string) => /\/p\d*[05]$/.test(url);
      const state = new DiscoveryState(budget({ pages }), perPattern, wanted);
      state.start(t0, entry('/'), null);
      const order: string[] = [];
      const linked = new Set(['/']);
      for (;;) {
        const waiting = state.carry(0).frontier;
        const [visit] = state.take(1, t0);
        if (!visit) break;
        const path = visit.url.slice(origin.length);
        // A wanted page waiting is taken before any other.
        const wantedFirst = wanted(visit.url) || !waiting.some((e) => wanted(e.url));
        expect({ site, path, wantedFirst }).toEqual({ site, path, wantedFirst: true });
        expect(linked.has(path)).toBe(true);
        order.push(path);
        for (const link of links[path] ?? []) linked.add(link.url.slice(origin.length));
        state.visited(visit, outcome(visit, frontierLinks(links[path] ?? [], perPattern)));
        expect(state.carry(0).frontier.length).toBeLessThanOrEqual(pages - state.pages);
      }
      expect(new Set(order).size).toBe(order.length);
      expect(order.length).toBeLessThanOrEqual(pages);
      expect(order.filter((p) => p.startsWith('/items/')).length).toBeLessThanOrEqual(perPattern);
      // Nothing wanted was left behind while an unwanted page took its place: the discovery explored, or its pages
      // budget is spent.
      expect(['explored', 'pages']).toContain(state.stopReason(t0));
    }
  });

  it('frontierLinks keeps the first `perPattern` distinct URLs of each pattern, in page order', () => {
    const orders = Array.from({ length: 20_000 }, (_, i) => entry(`/orders/${i}`, '/orders/{id}'));
    const links = [entry('/'), ...orders, entry('/'), entry('/help'), entry('/orders/0', '/orders/{id}')];
    expect(frontierLinks(links, 2).map((e) => e.url.slice(origin.length))).toEqual([
      '/',
      '/orders/0',
      '/orders/1',
      '/help',
    ]);
  });
});
