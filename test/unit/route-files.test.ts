import { describe, expect, it } from 'vitest';
import { patternOf } from '../../src/domain/page-patterns.js';
import { patternsTouchedBy, routesOfFile } from '../../src/domain/route-files.js';

// Which page patterns a changed file renders, generated: every route of a small application, written as each
// framework's convention writes its page file and its layout file, against the map a discovery of that application
// would have (a page of each route, ids filled in, plus the orders search). The expected patterns are counted from
// the routes' example URLs, not by the rule under test: a page file renders its route's pattern (and its search
// results), a layout every pattern under its route.

/** A route as its segments; `:x` is a dynamic segment (an id). */
const routes: string[][] = [
  [],
  ['orders'],
  ['orders', ':order'],
  ['orders', ':order', 'edit'],
  ['orders', 'new'],
  ['settings'],
  ['settings', 'profile'],
  ['products', ':product', 'reviews', ':review'],
];

/** A page of the route as the application serves it: ids are numbers and UUIDs. */
const example = (route: string[]) =>
  `/${route.map((s, i) => (s.startsWith(':') ? (i % 2 ? '1042' : '3f2c1a9e-7b4d-4e8a-9c1f-0a2b3c4d5e6f') : s)).join('/')}`;

const map = [...routes.map((r) => patternOf(example(r))), '/orders?q='];

const pathOf = (pattern: string) => pattern.split('?')[0]!;
const segs = (pattern: string) => pathOf(pattern).split('/').filter(Boolean);
const expectedPage = (route: string[]) => map.filter((p) => pathOf(p) === patternOf(example(route)));
const expectedLayout = (route: string[]) => {
  const prefix = segs(patternOf(example(route)));
  return map.filter((p) => prefix.every((s, i) => segs(p)[i] === s));
};

type Writer = (route: string[]) => string | null;
interface Convention {
  page: Writer;
  layout?: Writer;
}

const dirs = (route: string[], dyn: (name: string) => string) =>
  route.map((s) => (s.startsWith(':') ? dyn(s.slice(1)) : s));
const joined = (parts: string[]) => parts.map((p) => `${p}/`).join('');
const dotted = (route: string[]) => dirs(route, (n) => `$${n}Id`).join('.');
const railsResource = (route: string[]): { resource: string; action: string } | null => {
  const [resource, a, b] = route;
  if (route.length === 0 || resource === 'settings' || resource === 'products') return null;
  if (route.length === 1) return { resource: resource!, action: 'index' };
  if (a === 'new' && !b) return { resource: resource!, action: 'new' };
  if (a?.startsWith(':')) return { resource: resource!, action: b === 'edit' ? 'edit' : 'show' };
  return null;
};

const conventions: Record<string, Convention> = {
  'Next.js app router': {
    page: (r) => `app/${joined(dirs(r, (n) => `[${n}Id]`))}page.tsx`,
    layout: (r) => `app/${joined(dirs(r, (n) => `[${n}Id]`))}layout.tsx`,
  },
  'Next.js app router (src/, route group, parallel slot)': {
    page: (r) => `src/app/(shop)/${joined(dirs(r, (n) => `[${n}]`))}@main/page.jsx`,
    layout: (r) => `src/app/(shop)/${joined(dirs(r, (n) => `[${n}]`))}loading.js`,
  },
  'Next.js pages router': {
    page: (r) => (r.length ? `pages/${dirs(r, (n) => `[${n}Id]`).join('/')}.tsx` : 'pages/index.tsx'),
    layout: (r) => (r.length ? null : 'pages/_app.tsx'),
  },
  'Nuxt (index files)': { page: (r) => `pages/${joined(dirs(r, (n) => `[${n}]`))}index.vue` },
  Astro: {
    page: (r) => (r.length ? `src/pages/${dirs(r, (n) => `[${n}]`).join('/')}.astro` : 'src/pages/index.astro'),
  },
  SvelteKit: {
    page: (r) => `src/routes/${joined(dirs(r, (n) => `[${n}=int]`))}+page.svelte`,
    layout: (r) => `src/routes/(app)/${joined(dirs(r, (n) => `[${n}]`))}+layout.server.ts`,
  },
  'Remix flat routes': {
    page: (r) => `app/routes/${r.length ? `${dotted(r)}._index` : '_index'}.tsx`,
    layout: (r) => (r.length ? `app/routes/_shop.${dotted(r)}.tsx` : null),
  },
  'Remix flat folders': {
    page: (r) => `app/routes/${r.length ? `${dotted(r)}._index` : '_index'}/route.tsx`,
    layout: (r) => (r.length ? `app/routes/${dotted(r)}/route.tsx` : null),
  },
  'TanStack Router (directories)': {
    page: (r) => `src/routes/${joined(dirs(r, (n) => `$${n}`))}index.tsx`,
    layout: (r) => (r.length ? `src/routes/${dirs(r, (n) => `$${n}`).join('/')}/route.tsx` : 'src/routes/__root.tsx'),
  },
  Rails: {
    page: (r) => {
      const rails = railsResource(r);
      return rails && `app/views/${rails.resource}/${rails.action}.html.erb`;
    },
    layout: (r) => (r.length === 1 && railsResource(r) ? `app/controllers/${r[0]}_controller.rb` : null),
  },
};

const cases = Object.entries(conventions).flatMap(([name, c]) =>
  routes.flatMap((route) => {
    const page = c.page(route);
    const layout = c.layout?.(route) ?? null;
    return [
      ...(page ? [{ name, kind: 'page', route: example(route), file: page, expected: expectedPage(route) }] : []),
      ...(layout
        ? [{ name, kind: 'layout', route: example(route), file: layout, expected: expectedLayout(route) }]
        : []),
    ];
  }),
);

describe('the pages a changed file renders, by framework convention', () => {
  it('covers every convention with pages and layouts', () => {
    for (const name of Object.keys(conventions)) expect(cases.some((c) => c.name === name)).toBe(true);
    expect(cases.length).toBeGreaterThan(80);
  });

  it.each(cases)('$name: $kind of $route ($file)', ({ file, expected }) => {
    expect(expected.length).toBeGreaterThan(0);
    expect(patternsTouchedBy([file], map)).toEqual(expected);
    // Wherever the application sits in a repository (a monorepo's package), the same pages.
    expect(patternsTouchedBy([`apps/web/${file}`], map)).toEqual(expected);
  });

  it('a change of several files touches the union of their pages, in the map order', () => {
    expect(patternsTouchedBy(['app/settings/page.tsx', 'app/orders/[id]/page.tsx', 'README.md'], map)).toEqual([
      '/orders/{id}',
      '/settings',
    ]);
  });

  it.each([
    'src/components/OrderCard.tsx',
    'src/checkout/Checkout.tsx',
    'app/globals.css',
    'app/orders/[id]/OrderView.tsx',
    'app/api/orders/route.ts',
    'app/orders/route.ts',
    'app/_components/orders/page.tsx',
    'app/(.)orders/[id]/page.tsx',
    'pages/api/orders.ts',
    'pages/_error.tsx',
    'pages/404.tsx',
    'pages/orders/[id].test.tsx',
    'app/orders/page.spec.tsx',
    'src/routes/orders/+server.ts',
    'src/routes/orders/+error.svelte',
    'app/routes/orders.$orderId/components/Summary.tsx',
    'src/routes/-components/Header.tsx',
    'app/views/orders/_form.html.erb',
    'app/views/orders/index.json.jbuilder',
    'app/views/layouts/application.html.erb',
    'app/views/order_mailer/shipped.html.erb',
    'app/controllers/application_controller.rb',
    'app/controllers/concerns/paginated.rb',
    'app/models/order.rb',
    'orders/templates/orders/order_detail.html',
    'orders/urls.py',
    'orders/views.py',
    'README.md',
  ])('%s renders no page of the map that its path can name', (file) => {
    expect(patternsTouchedBy([file], map)).toEqual([]);
  });

  it('a dynamic segment renders ids only; a catch-all renders whatever is below it', () => {
    const docs = ['/docs', '/docs/install', '/docs/api/errors', '/orders/{id}', '/orders/new'];
    expect(patternsTouchedBy(['app/orders/[id]/page.tsx'], docs)).toEqual(['/orders/{id}']);
    expect(patternsTouchedBy(['app/docs/[...slug]/page.tsx'], docs)).toEqual(['/docs/install', '/docs/api/errors']);
    expect(patternsTouchedBy(['app/docs/[[...slug]]/page.tsx'], docs)).toEqual([
      '/docs',
      '/docs/install',
      '/docs/api/errors',
    ]);
    expect(patternsTouchedBy(['app/routes/docs.$.tsx'], docs)).toEqual(['/docs', '/docs/install', '/docs/api/errors']);
  });

  it('an optional segment renders the route with and without it', () => {
    expect(routesOfFile('src/routes/[[lang]]/about/+page.svelte')).toHaveLength(2);
    expect(patternsTouchedBy(['app/routes/($lang).about.tsx'], ['/about', '/{id}/about', '/contact'])).toEqual([
      '/about',
      '/{id}/about',
    ]);
  });

  it('a Rails custom action is its collection or member route, whichever the map has', () => {
    expect(patternsTouchedBy(['app/views/orders/track.html.erb'], ['/orders/track', '/orders/{id}/track'])).toEqual([
      '/orders/track',
      '/orders/{id}/track',
    ]);
    expect(
      patternsTouchedBy(['app/controllers/admin/orders_controller.rb'], ['/admin/orders/{id}', '/orders']),
    ).toEqual(['/admin/orders/{id}']);
  });
});
