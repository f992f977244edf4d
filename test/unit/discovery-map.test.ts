import { describe, expect, it } from 'vitest';
import { buildDiscoveryMap, diffDiscoveryMaps } from '../../src/domain/discovery-map.js';
import { form, o, page, patternOf } from '../support/discovery-map-pages.js';

// A discovery's map from its stored pages, and the diff of two maps, by hand-counted examples: what is grouped under a
// pattern, the links between patterns (to pages never visited too), and each kind of difference a user reads.

const before = [
  page('/', { links: [`${o}/orders`, `${o}/login`] }),
  page('/orders', { links: [`${o}/orders/1`, `${o}/orders/2`, `${o}/orders/3`, `${o}/`] }),
  page('/orders/1', { forms: [form('Note', ['text'])], headings: ['Order 1'] }),
  page('/orders/2', { forms: [form('Note', ['text'])], headings: ['Order 2'] }),
  page('/login', { forms: [form('Sign in', ['email', 'password'])] }),
];

describe('buildDiscoveryMap', () => {
  it('groups pages by pattern, one form per key, links between patterns (unvisited targets named by pattern)', () => {
    const map = buildDiscoveryMap(before, patternOf);
    expect(map.patterns.map((p) => [p.pattern, p.pages.length, p.forms.length])).toEqual([
      ['/', 1, 0],
      ['/login', 1, 1],
      ['/orders', 1, 0],
      ['/orders/{id}', 2, 1],
    ]);
    expect(map.patterns.find((p) => p.pattern === '/orders/{id}')!.headings).toEqual(['Order 1', 'Order 2']);
    expect(map.links).toEqual([
      { from: '/', to: '/login' },
      { from: '/', to: '/orders' },
      { from: '/orders', to: '/' },
      { from: '/orders', to: '/orders/{id}' },
    ]);
  });

  it('a redirected page counts under the pattern it ended on, and a link to the URL asked for goes there', () => {
    const map = buildDiscoveryMap(
      [page('/', { links: [`${o}/account`] }), page('/account', { finalUrl: `${o}/login`, pattern: '/login' })],
      patternOf,
    );
    expect(map.patterns.map((p) => p.pattern)).toEqual(['/', '/login']);
    expect(map.links).toEqual([{ from: '/', to: '/login' }]);
  });
});

describe('diffDiscoveryMaps', () => {
  it('says nothing of two equal maps', () => {
    const map = buildDiscoveryMap(before, patternOf);
    expect(diffDiscoveryMaps(map, buildDiscoveryMap(structuredClone(before), patternOf))).toEqual({
      patterns: { added: [], removed: [], changed: [] },
      forms: { added: [], removed: [], changed: [] },
    });
  });

  it('patterns and forms added, removed and changed, each once', () => {
    const after = [
      page('/', { links: [`${o}/orders`, `${o}/search`] }),
      page('/orders', { links: [`${o}/orders/1`, `${o}/`] }),
      // The note form gained a field: the same form (name and method), changed.
      page('/orders/1', {
        forms: [form('Note', ['text', 'author']), form('Refund', ['amount'])],
        headings: ['Order 1'],
      }),
      page('/search', { forms: [form('Search', ['q'], 'get')] }),
    ];
    const diff = diffDiscoveryMaps(buildDiscoveryMap(before, patternOf), buildDiscoveryMap(after, patternOf));
    expect(diff.patterns).toEqual({
      added: ['/search'],
      removed: ['/login'],
      changed: [
        { pattern: '/', what: ['links'] },
        { pattern: '/orders/{id}', what: ['forms', 'headings'] },
      ],
    });
    expect(diff.forms.added.map((f) => [f.pattern, f.form.name])).toEqual([
      ['/orders/{id}', 'Refund'],
      ['/search', 'Search'],
    ]);
    expect(diff.forms.removed.map((f) => [f.pattern, f.form.name])).toEqual([['/login', 'Sign in']]);
    expect(diff.forms.changed.map((c) => [c.pattern, c.name, c.before.fields.length, c.after.fields.length])).toEqual([
      ['/orders/{id}', 'Note', 1, 2],
    ]);
  });
});
