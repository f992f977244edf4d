import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  layoutSiteMap,
  parentPattern,
  siteMapGeometry,
  type LayoutPattern,
  type SiteMapLayout,
} from '../../src/domain/site-map-layout.js';
import { shopMap } from '../support/coverage-fixture.js';

// The coverage page's picture (issue 34): where each page pattern is drawn. The shop of coverage-fixture.ts with
// its header linking the six top pages from every page; then properties over random maps: nothing drawn twice,
// nothing lost (every pattern is a box or counted in exactly one summary), children below their parents.

const uncoveredInShop = new Set(['/', '/orders']);
const shop: LayoutPattern[] = shopMap.map((p) => ({
  pattern: p.pattern,
  covered: !uncoveredInShop.has(p.pattern),
  forms: p.forms.length,
}));
const header = ['/', '/login', '/products', '/cart', '/orders', '/settings'];
const shopLinks = [
  ...shopMap.flatMap((p) => header.map((to) => ({ from: p.pattern, to }))),
  { from: '/products', to: '/products/{id}' },
  { from: '/cart', to: '/checkout' },
  { from: '/orders', to: '/orders/{id}' },
  { from: '/orders', to: '/returns' },
];

describe('site map layout', () => {
  it('draws the shop: one box per pattern in path order, children indented under their parent, header links as navigation', () => {
    const layout = layoutSiteMap(shop, shopLinks);
    expect(layout.nodes.map((n) => [n.pattern, n.depth, n.covered, n.forms])).toEqual([
      ['/', 0, false, 1],
      ['/cart', 1, true, 1],
      ['/checkout', 1, true, 1],
      ['/login', 1, true, 1],
      ['/orders', 1, false, 0],
      ['/orders/{id}', 2, true, 1],
      ['/products', 1, true, 1],
      ['/products/{id}', 2, true, 2],
      ['/settings', 1, true, 1],
    ]);
    expect(layout.summaries).toEqual([]);
    expect(layout.navigation).toEqual(header.slice().sort());
    expect(layout.arcs.map((a) => [a.from, a.to])).toEqual([
      ['/cart', '/checkout'],
      ['/orders', '/orders/{id}'],
      ['/products', '/products/{id}'],
    ]);
    // Every box but the root's hangs from its parent's box by an elbow.
    expect(layout.connectors).toHaveLength(8);
    expect(layout.nodes.find((n) => n.pattern === '/products')!.linksIn).toBe(8);
    const { rowHeight, pad } = siteMapGeometry;
    expect(layout.nodes.map((n) => n.y)).toEqual(layout.nodes.map((_, i) => pad + i * rowHeight));
    expect(new Set(layout.nodes.map((n) => n.x + n.width)).size).toBe(1);
  });

  it('finds the longest pattern prefix as the parent, skipping missing levels', () => {
    const known = new Set(['/', '/a', '/a/b/c', '/x/y']);
    expect(parentPattern('/a/b/c', known)).toBe('/a');
    expect(parentPattern('/a/b/c/d', known)).toBe('/a/b/c');
    expect(parentPattern('/x/y', known)).toBe('/');
    expect(parentPattern('/', known)).toBeUndefined();
    expect(parentPattern('/q', new Set(['/q']))).toBeUndefined();
  });

  it('caps a parent at its uncovered children first and counts the rest in a summary row', () => {
    const items: LayoutPattern[] = Array.from({ length: 40 }, (_, i) => ({
      pattern: `/items/${String(i).padStart(2, '0')}`,
      covered: i % 4 !== 0,
      forms: 0,
    }));
    const layout = layoutSiteMap([{ pattern: '/items', covered: true, forms: 0 }, ...items], [], { maxChildren: 12 });
    const drawn = layout.nodes.filter((n) => n.pattern !== '/items');
    // Ten uncovered (00, 04, ... 36) come first, then the first two covered ones.
    expect(drawn.map((n) => n.pattern)).toEqual(
      ['00', '01', '02', '04', '08', '12', '16', '20', '24', '28', '32', '36'].map((n) => `/items/${n}`),
    );
    expect(layout.summaries).toMatchObject([{ under: '/items', hidden: 28, uncovered: 0, depth: 1 }]);
  });

  it('cuts a long pattern to fit its box, with an ellipsis', () => {
    const long = `/${'segment'.repeat(12)}/{id}`;
    const [node] = layoutSiteMap([{ pattern: long, covered: false, forms: 3 }], []).nodes;
    expect(node!.label.endsWith('…')).toBe(true);
    expect(node!.label.length * siteMapGeometry.charWidth).toBeLessThanOrEqual(
      node!.width - 20 - siteMapGeometry.tagWidth,
    );
    expect(long.startsWith(node!.label.slice(0, -1))).toBe(true);
  });

  const segment = fc.constantFrom('a', 'b', 'c', '{id}', 'long-name', 'x');
  const pattern = fc.array(segment, { minLength: 0, maxLength: 4 }).map((s) => `/${s.join('/')}`);
  const maps = fc.uniqueArray(fc.record({ pattern, covered: fc.boolean(), forms: fc.nat(3) }), {
    selector: (p) => p.pattern,
    maxLength: 120,
  });

  function checkInvariants(input: LayoutPattern[], layout: SiteMapLayout, maxRows: number) {
    const drawn = layout.nodes.map((n) => n.pattern);
    expect(new Set(drawn).size).toBe(drawn.length);
    const hidden = layout.summaries.reduce((n, s) => n + s.hidden, 0);
    expect(drawn.length + hidden).toBe(input.length);
    const uncovered = layout.nodes.filter((n) => !n.covered).length;
    expect(uncovered + layout.summaries.reduce((n, s) => n + s.uncovered, 0)).toBe(
      input.filter((p) => !p.covered).length,
    );
    expect(layout.nodes.length + layout.summaries.length).toBeLessThanOrEqual(Math.max(maxRows, 2));
    const rows = [...layout.nodes, ...layout.summaries].map((b) => b.y).sort((a, b) => a - b);
    expect(new Set(rows).size).toBe(rows.length);
    const known = new Set(input.map((p) => p.pattern));
    const at = new Map(layout.nodes.map((n) => [n.pattern, n]));
    for (const n of layout.nodes) {
      const parent = parentPattern(n.pattern, known);
      if (parent === undefined) expect(n.depth).toBe(0);
      else {
        // A drawn child's parent is drawn above it, one level less indented.
        const p = at.get(parent)!;
        expect(p.y).toBeLessThan(n.y);
        expect(n.depth).toBe(p.depth + 1);
      }
      expect(n.y + siteMapGeometry.boxHeight).toBeLessThanOrEqual(layout.height);
      expect(n.x + n.width).toBeLessThanOrEqual(layout.width);
    }
    for (const a of layout.arcs) expect([at.has(a.from), at.has(a.to), a.from !== a.to]).toEqual([true, true, true]);
  }

  it('loses nothing and draws nothing twice, whatever the map and the caps', () => {
    fc.assert(
      fc.property(
        maps,
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 2, max: 60 }),
        fc.array(fc.tuple(fc.nat(119), fc.nat(119))),
        (input, maxChildren, maxRows, pairs) => {
          const links = pairs
            .filter(([a, b]) => a < input.length && b < input.length)
            .map(([a, b]) => ({ from: input[a]!.pattern, to: input[b]!.pattern }));
          const layout = layoutSiteMap(input, links, { maxChildren, maxRows });
          checkInvariants(input, layout, maxRows);
          // The order the map came in does not change the picture.
          expect(layoutSiteMap([...input].reverse(), [...links].reverse(), { maxChildren, maxRows })).toEqual(layout);
        },
      ),
      { numRuns: 300 },
    );
  });
});
