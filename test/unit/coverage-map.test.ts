import { describe, expect, it } from 'vitest';
import { mapPatternsOf } from '../../src/domain/coverage-map.js';
import { buildDiscoveryMap, type MapSourcePage } from '../../src/domain/discovery-map.js';
import { patternOf } from '../../src/domain/page-patterns.js';

// A discovery's map as the coverage and suggestions read it: the example page a suggested test starts on (a page
// that loaded, as its visit ended), the depth in links from the start page (which may have redirected) and how many
// other patterns link to each.

const origin = 'https://shop.test';
const page = (url: string, links: string[], more: Partial<MapSourcePage> = {}): MapSourcePage => ({
  url: `${origin}${url}`,
  finalUrl: `${origin}${more.finalUrl ?? url}`,
  pattern: patternOf(more.finalUrl ?? url),
  status: 200,
  title: `Title of ${url}`,
  headings: [],
  forms: [],
  actions: [],
  links: links.map((l) => `${origin}${l}`),
  error: null,
  ...more,
  ...(more.finalUrl && { finalUrl: `${origin}${more.finalUrl}` }),
});

// / redirects to /products; /products → /products/1, /products/2, /cart; /cart → /checkout; /products/{id} → /cart.
// /broken failed to load; /orphan is linked from nowhere (it was a start of a continued chain, say).
const pages = [
  page('/', ['/products', '/cart'], { finalUrl: '/products' }),
  page('/products', ['/products/1', '/products/2', '/cart', '/broken']),
  page('/products/1', ['/cart'], { status: 500, title: 'Error' }),
  page('/products/2', ['/cart']),
  page('/cart', ['/checkout', '/products']),
  page('/checkout', []),
  page('/broken', [], { status: 0, error: 'net::ERR_CONNECTION_RESET', title: '' }),
  page('/orphan', ['/cart']),
];

describe('mapPatternsOf', () => {
  const map = mapPatternsOf(buildDiscoveryMap(pages, patternOf), `${origin}/`);
  const of = (pattern: string) => map.find((p) => p.pattern === pattern)!;

  it('counts depth from the pattern the start page ended on, breadth first over the links', () => {
    expect(Object.fromEntries(map.map((p) => [p.pattern, p.depth]))).toEqual({
      '/products': 0,
      '/products/{id}': 1,
      '/cart': 1,
      '/broken': 1,
      '/checkout': 2,
      '/orphan': undefined,
    });
  });

  it('counts the other patterns linking in, itself excluded', () => {
    expect(Object.fromEntries(map.map((p) => [p.pattern, p.linksIn]))).toEqual({
      '/products': 1, // /cart (its own / page is itself)
      '/products/{id}': 1,
      '/cart': 3, // /products, /products/{id}, /orphan
      '/broken': 1,
      '/checkout': 1,
      '/orphan': 0,
    });
  });

  it('starts a suggested test on a page that loaded, where its visit ended; a pattern that never loaded has none', () => {
    expect(of('/products')).toMatchObject({ example: '/products', status: 200, title: 'Title of /' });
    // The first product answered 500: the second is the example.
    expect(of('/products/{id}')).toMatchObject({ example: '/products/2', status: 200, title: 'Title of /products/2' });
    expect(of('/broken').example).toBeUndefined();
    expect(of('/broken').status).toBe(0);
    expect(of('/broken').title).toBeUndefined();
  });

  it('a start page visited under its own URL is depth 0; one the discovery has no page of leaves depths unknown', () => {
    const fromCart = mapPatternsOf(buildDiscoveryMap(pages.slice(1), patternOf), `${origin}/cart`);
    expect(fromCart.find((p) => p.pattern === '/cart')!.depth).toBe(0);
    expect(fromCart.find((p) => p.pattern === '/products')!.depth).toBe(1);
    const fromNowhere = mapPatternsOf(buildDiscoveryMap(pages.slice(1), patternOf), `${origin}/`);
    expect(fromNowhere.map((p) => p.depth)).toEqual(fromNowhere.map(() => undefined));
  });
});
