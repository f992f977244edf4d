import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isIdSegment, nextUrls, normalizeUrl, patternOf } from '../../src/domain/page-patterns.js';

const origin = 'https://app.example.com';

describe('normalizeUrl', () => {
  it.each([
    ['/orders?b=2&a=1#top', `${origin}/orders?a=1&b=2`],
    ['https://APP.example.com:443/orders', `${origin}/orders`],
    ['/orders?utm_source=mail&utm_medium=x&page=2&gclid=abc&fbclid=z', `${origin}/orders?page=2`],
    ['orders/7', `${origin}/orders/7`],
    ['/a/../b/./c', `${origin}/b/c`],
    ['/search?q=red+shoes', `${origin}/search?q=red+shoes`],
    ['/tags?t=b&t=a', `${origin}/tags?t=b&t=a`],
    ['/report.html', `${origin}/report.html`],
    ['/', `${origin}/`],
  ])('%s is %s', (url, expected) => {
    expect(normalizeUrl(url, origin)).toBe(expected);
  });

  it.each([
    'https://other.example.com/orders',
    'http://app.example.com/orders',
    'https://app.example.com:8443/orders',
    'mailto:help@example.com',
    'javascript:void(0)',
    'tel:+4912345',
    'data:text/html,hi',
    '/invoices/7.pdf',
    '/exports/all.ZIP',
    '/files/photo.jpeg?size=2',
    'http://[::1',
  ])('%s is not a page of the origin', (url) => {
    expect(normalizeUrl(url, origin)).toBeNull();
  });

  const query = fc.array(fc.tuple(fc.stringMatching(/^[a-z_]{1,6}$/), fc.stringMatching(/^[a-z0-9]{0,5}$/)), {
    maxLength: 6,
  });
  const path = fc.array(fc.stringMatching(/^[a-z0-9-]{1,8}$/), { maxLength: 5 }).map((s) => `/${s.join('/')}`);

  it('is idempotent, ignores fragments and parameter order, and never keeps a tracking parameter', () => {
    fc.assert(
      fc.property(path, query, fc.stringMatching(/^[a-z]{0,5}$/), (p, params, hash) => {
        const qs = (list: [string, string][]) => new URLSearchParams(list).toString();
        const url = `${p}?${qs(params)}#${hash}`;
        const once = normalizeUrl(url, origin)!;
        expect(once).not.toBeNull();
        expect(normalizeUrl(once, origin)).toBe(once);
        // Reordering distinct parameter names does not change the URL.
        const reversed = `${p}?${qs([...params].reverse())}`;
        const distinctNames = new Set(params.map(([n]) => n)).size === params.length;
        if (distinctNames) expect(normalizeUrl(reversed, origin)).toBe(once);
        expect(once).not.toMatch(/[?&](utm_|gclid|fbclid)/);
        expect(once).not.toContain('#');
        expect(once.startsWith(`${origin}/`)).toBe(true);
      }),
    );
  });
});

describe('patternOf', () => {
  it.each([
    ['/orders/123', '/orders/{id}'],
    ['/orders/456', '/orders/{id}'],
    ['/orders/new', '/orders/new'],
    ['/orders/123/edit', '/orders/{id}/edit'],
    ['/customers/3f2b8c1e-9d4a-4e2b-8f6a-1c2d3e4f5a6b/orders', '/customers/{id}/orders'],
    ['/invoices/a3f9c2e1b7', '/invoices/{id}'],
    ['/invoices/deadbeef', '/invoices/deadbeef'],
    ['/orders/ORD-1001', '/orders/{id}'],
    ['/products/sku-48213/reviews', '/products/{id}/reviews'],
    ['/reports/2024-05', '/reports/{id}'],
    ['/api/v2/status', '/api/v2/status'],
    ['/settings/profile', '/settings/profile'],
    ['/s/AbCdEfGhIjKlMnOpQrStUv', '/s/{id}'],
    ['/search?q=red+shoes', '/search?q='],
    ['/orders?sort=date&page=2', '/orders?page=&sort='],
    ['/orders/12?utm_source=x', '/orders/{id}'],
    ['https://app.example.com/orders/9/', '/orders/{id}/'],
    ['/', '/'],
  ])('%s is %s', (path, expected) => {
    expect(patternOf(path)).toBe(expected);
  });

  const word = fc.constantFrom('orders', 'customers', 'new', 'edit', 'settings', 'profile', 'reviews', 'team');
  const id = fc.oneof(
    fc.nat().map(String),
    fc.uuid(),
    fc.stringMatching(/^[0-9a-f]{8,16}$/).filter((s) => /\d/.test(s)),
    fc.tuple(fc.constantFrom('ORD', 'sku', 'inv'), fc.integer({ min: 10, max: 99_999 })).map(([p, n]) => `${p}-${n}`),
  );

  it('gives one pattern to pages that differ only by ids, and keeps words', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(word, fc.boolean()), { minLength: 1, maxLength: 5 }), id, id, (shape, a, b) => {
        const build = (value: string) => `/${shape.map(([w, withId]) => (withId ? `${w}/${value}` : w)).join('/')}`;
        expect(patternOf(build(a))).toBe(patternOf(build(b)));
        const pattern = patternOf(build(a));
        for (const [w] of shape) expect(pattern).toContain(`/${w}`);
        expect(pattern.split('{id}').length - 1).toBe(shape.filter(([, withId]) => withId).length);
      }),
    );
  });

  it('finds ids by their shape, not words', () => {
    fc.assert(
      fc.property(id, (value) => {
        expect(isIdSegment(value)).toBe(true);
      }),
    );
    for (const w of ['new', 'edit', 'v2', 'h1', 'settings', 'deadbeef', 'about-us', '']) {
      expect(isIdSegment(w)).toBe(false);
    }
  });
});

describe('nextUrls', () => {
  const url = (path: string) => `${origin}${path}`;

  it('visits at most perPatternLimit URLs of a pattern, counting those visited before', () => {
    const links = Array.from({ length: 1000 }, (_, i) => url(`/orders/${i + 1}`));
    expect(nextUrls({}, links)).toEqual([url('/orders/1'), url('/orders/2')]);
    expect(nextUrls({ '/orders/{id}': 1 }, links)).toEqual([url('/orders/1')]);
    expect(nextUrls({ '/orders/{id}': 2 }, links)).toEqual([]);
    expect(nextUrls({}, links, 5)).toHaveLength(5);
  });

  it('keeps the order of first appearance, once per URL, skipping seen URLs and unsafe paths', () => {
    const links = [
      url('/orders'),
      url('/logout'),
      url('/orders/1'),
      url('/orders'),
      url('/users/sign_out'),
      url('/orders/1/delete'),
      url('/orders/new'),
      url('/orders/2'),
    ];
    expect(nextUrls({}, links, 2, [url('/orders/1')])).toEqual([url('/orders'), url('/orders/new'), url('/orders/2')]);
  });

  it('never exceeds the limit of any pattern, whatever the links', () => {
    const link = fc
      .tuple(fc.constantFrom('orders', 'customers', 'search'), fc.oneof(fc.nat(50).map(String), fc.constant('new')))
      .map(([w, v]) => url(`/${w}/${v}`));
    fc.assert(
      fc.property(fc.array(link, { maxLength: 60 }), fc.integer({ min: 1, max: 4 }), (links, limit) => {
        const picked = nextUrls({}, links, limit);
        expect(new Set(picked).size).toBe(picked.length);
        const counts = new Map<string, number>();
        for (const p of picked) counts.set(patternOf(p), (counts.get(patternOf(p)) ?? 0) + 1);
        for (const [pattern, count] of counts) {
          expect(count).toBeLessThanOrEqual(limit);
          const available = new Set(links.filter((l) => patternOf(l) === pattern)).size;
          expect(count).toBe(Math.min(limit, available));
        }
      }),
    );
  });
});
