// Which pages a changed file renders (issue 34: a change review says when a diff touches a page no test covers).
// Only what a framework's file-based routing makes certain is read from a path: the file's place under the routes
// directory names its URL. Next.js (app and pages routers), Nuxt and Astro (`pages/`), Remix (`app/routes/`),
// TanStack Router (`src/routes/`), SvelteKit (`src/routes/**/+page`) and Rails (`app/views`, `app/controllers`,
// RESTful names). A layout renders every page under it, so it touches its whole subtree. Django declares its URLs in
// urls.py, not by file, so none of its files names a page; other files (components, styles, models) neither: a
// review does not guess. Pure: the review's activity matches the routes against the coverage map's patterns.
import { isIdSegment } from './page-patterns.js';

/** One segment of a route: a literal, one dynamic segment, or a catch-all (one or more; optional: zero or more). */
export type RouteSegment = { kind: 'static'; text: string } | { kind: 'param' } | { kind: 'rest'; optional: boolean };

export interface RouteTemplate {
  segments: RouteSegment[];
  /** A layout (or a Rails controller): every page below the route too. */
  subtree: boolean;
}

const stat = (text: string): RouteSegment => ({ kind: 'static', text });
const param: RouteSegment = { kind: 'param' };

/** Tests, stories and type declarations sit beside routes without being routes. */
const notRoute = /\.(test|spec|stories|story|d)\.[a-z]+$/i;

/**
 * A bracketed segment (`[id]`, `[...slug]`, `[[...slug]]`, SvelteKit's `[id=int]`, `[[lang]]`) or a literal; null for
 * a segment that takes no part in the URL (`(group)`, `@slot`). `optional`: `[[x]]`, a segment that may be absent.
 */
function bracketSegment(seg: string): RouteSegment[][] | null {
  if (/^\(.*\)$/.test(seg) || seg.startsWith('@')) return null;
  if (/^\[\[\.\.\..+\]\]$/.test(seg)) return [[{ kind: 'rest', optional: true }]];
  if (/^\[\.\.\..+\]$/.test(seg)) return [[{ kind: 'rest', optional: false }]];
  if (/^\[\[[^\]]+\]\]$/.test(seg)) return [[param], []];
  if (seg.includes('[')) return [[param]];
  return [[stat(seg)]];
}

/** Every combination of the segments' alternatives (an optional segment is there or not). */
function expand(parts: RouteSegment[][][], subtree: boolean): RouteTemplate[] {
  let out: RouteSegment[][] = [[]];
  for (const alternatives of parts) out = out.flatMap((prefix) => alternatives.map((alt) => [...prefix, ...alt]));
  return out.map((segments) => ({ segments, subtree }));
}

/** Folders of a bracket-routed tree (Next.js, SvelteKit, Nuxt, Astro); null when one of them is not part of a URL. */
function bracketFolders(dirs: string[]): RouteSegment[][][] | null {
  const parts: RouteSegment[][][] = [];
  for (const dir of dirs) {
    // Next.js: a `_private` folder is not routed; `(.)x` intercepts another route's URL.
    if (dir.startsWith('_') || /^\(\.+\)/.test(dir)) return null;
    const seg = bracketSegment(dir);
    if (seg) parts.push(seg);
  }
  return parts;
}

const nextAppFile = /^(page|default|layout|template|loading|error|not-found)\.(tsx|ts|jsx|js|mdx)$/;

function nextApp(dirs: string[], file: string): RouteTemplate[] {
  const m = nextAppFile.exec(file);
  if (!m) return [];
  const parts = bracketFolders(dirs);
  return parts ? expand(parts, m[1] !== 'page' && m[1] !== 'default') : [];
}

function svelteKit(dirs: string[], file: string): RouteTemplate[] {
  const m = /^\+(page|layout)(\.server)?\.(svelte|ts|js)$/.exec(file);
  if (!m) return [];
  const parts = bracketFolders(dirs);
  return parts ? expand(parts, m[1] === 'layout') : [];
}

/** Next.js pages router, Nuxt and Astro: `pages/orders/[id].vue` is `/orders/{id}`, `index` its folder. */
function pagesDir(dirs: string[], file: string): RouteTemplate[] {
  const m = /^(.+)\.(tsx|ts|jsx|js|vue|astro|md|mdx|svelte)$/.exec(file);
  if (!m || dirs[0] === 'api') return [];
  const name = m[1]!;
  // Next.js: _app and _document wrap every page; _error, 404 and 500 are no page of the map.
  if (dirs.length === 0 && (name === '_app' || name === '_document')) return [{ segments: [], subtree: true }];
  if (name.startsWith('_') || /^(404|500)$/.test(name)) return [];
  const parts = bracketFolders(name === 'index' ? dirs : [...dirs, name]);
  return parts ? expand(parts, false) : [];
}

/**
 * Remix and TanStack Router: `orders.$id.tsx` (or folders `orders/$id.tsx`, `orders.$id/route.tsx`) is
 * `/orders/{id}`; `_index`/`index` the parent's own page; `_auth` a pathless layout; `orders_` out of its parent's
 * layout; `$` a splat; `($lang)` optional; `[.]` an escaped dot. A route that is not an index is its children's
 * layout too.
 */
function flatRoutes(dirs: string[], file: string, root: boolean): RouteTemplate[] {
  const m = /^(.+)\.(tsx|ts|jsx|js)$/.exec(file);
  if (!m) return [];
  const base = m[1]!;
  if (root && base === '__root') return [{ segments: [], subtree: true }];
  // Remix's flat folders (`orders.$id/`) route only their `route.tsx`; beside it sit the route's own modules.
  if (base !== 'route' && dirs.some((d) => /\.(?![^[]*\])/.test(d))) return [];
  const names = base === 'route' ? dirs : [...dirs, base];
  if (names.length === 0) return [];
  const pieces = names.flatMap((n) => n.split(/\.(?![^[]*\])/));
  const parts: RouteSegment[][][] = [];
  let index = false;
  for (const raw of pieces) {
    if (raw.startsWith('-') || raw.startsWith('__')) return [];
    if (raw === '_index' || raw === 'index') {
      index = true;
      continue;
    }
    if (/^\(.*\)$/.test(raw)) {
      const inner = raw.slice(1, -1);
      parts.push([[inner.startsWith('$') ? param : stat(unescape(inner))], []]);
      continue;
    }
    if (raw.startsWith('_')) continue;
    const piece = raw.endsWith('_') ? raw.slice(0, -1) : raw;
    if (piece === '$') parts.push([[{ kind: 'rest', optional: true }]]);
    else if (piece.startsWith('$')) parts.push([[param]]);
    else parts.push([[stat(unescape(piece))]]);
  }
  return expand(parts, !index);
}

const unescape = (piece: string) => piece.replace(/\[(.*?)\]/g, '$1');

const railsActions: Record<string, RouteSegment[]> = {
  index: [],
  show: [param],
  new: [stat('new')],
  edit: [param, stat('edit')],
};

/** Rails: a view `orders/show.html.erb` is `/orders/{id}`; a controller renders every page of its resource. */
function rails(kind: 'views' | 'controllers', dirs: string[], file: string): RouteTemplate[] {
  if (kind === 'controllers') {
    const m = /^(.+)_controller\.rb$/.exec(file);
    if (!m || m[1] === 'application' || dirs.includes('concerns') || dirs.includes('api')) return [];
    return [{ segments: [...dirs, m[1]!].map(stat), subtree: true }];
  }
  // An HTML view only (`show.html.erb`, `show.html+phone.haml`): `index.json.jbuilder` renders no page.
  const m = /^([a-z0-9_]+)(\.html(\+[a-z0-9_]+)?)?\.(erb|haml|slim)$/.exec(file);
  if (!m || m[1]!.startsWith('_') || dirs.length === 0 || dirs[0] === 'layouts') return [];
  if (dirs.some((d) => d.endsWith('_mailer') || d === 'shared' || d === 'application')) return [];
  const resource = dirs.map(stat);
  const action = m[1]!;
  const known = railsActions[action];
  if (known) return [{ segments: [...resource, ...known], subtree: false }];
  // A custom action is a collection route or a member route: the map says which one exists.
  return [
    { segments: [...resource, stat(action)], subtree: false },
    { segments: [...resource, param, stat(action)], subtree: false },
  ];
}

/** The routes a changed file renders, by its framework's conventions; none when its path names no page. */
export function routesOfFile(path: string): RouteTemplate[] {
  const parts = path.replace(/\\/g, '/').split('/').filter(Boolean);
  const file = parts.at(-1);
  if (!file || notRoute.test(file)) return [];
  const dirs = parts.slice(0, -1);
  const after = (i: number) => dirs.slice(i + 1);
  const at = (name: string, parent?: string) =>
    dirs.findLastIndex((d, i) => d === name && (parent === undefined || dirs[i - 1] === parent));

  if (file.startsWith('+')) {
    const i = at('routes');
    return i < 0 ? [] : svelteKit(after(i), file);
  }
  const railsRoot = Math.max(at('views', 'app'), at('controllers', 'app'));
  if (railsRoot >= 0) return rails(dirs[railsRoot] as 'views' | 'controllers', after(railsRoot), file);
  const remix = at('routes', 'app');
  if (remix >= 0) return flatRoutes(after(remix), file, false);
  const tanstack = at('routes', 'src');
  if (tanstack >= 0 && /\.(tsx|jsx)$/.test(file)) return flatRoutes(after(tanstack), file, true);
  const pages = at('pages');
  const app = at('app');
  // The nearer routes directory wins: `app/` of a Next.js project may hold a `pages/` folder of components.
  const inApp = app > pages ? nextApp(after(app), file) : [];
  return inApp.length > 0 || pages < 0 ? inApp : pagesDir(after(pages), file);
}

/**
 * Whether `template` renders `segments` (a pattern's path split, `{id}` standing for an id). A dynamic segment renders
 * the map's `{id}` only: a literal there (`/orders/new`) may have a route of its own that the framework prefers, which
 * a diff does not show. A catch-all exists for the paths nothing else routes: it renders whatever is below it.
 */
function matches(template: RouteSegment[], segments: string[], subtree: boolean): boolean {
  const [head, ...rest] = template;
  if (!head) return subtree || segments.length === 0;
  if (head.kind === 'rest') {
    for (let n = head.optional ? 0 : 1; n <= segments.length; n++)
      if (matches(rest, segments.slice(n), subtree)) return true;
    return false;
  }
  const [first, ...others] = segments;
  if (first === undefined) return false;
  const same =
    head.kind === 'param' ? first === '{id}' : head.text === first || (first === '{id}' && isIdSegment(head.text));
  return same && matches(rest, others, subtree);
}

/** The path segments of a map pattern (its query, the parameter names of a search, left out). */
const segmentsOf = (pattern: string) => pattern.split('?')[0]!.split('/').filter(Boolean);

/** The patterns of `patterns` that a change of the files in `paths` renders, in the order of `patterns`. */
export function patternsTouchedBy(paths: readonly string[], patterns: readonly string[]): string[] {
  const routes = paths.flatMap(routesOfFile);
  if (routes.length === 0) return [];
  return patterns.filter((p) => routes.some((r) => matches(r.segments, segmentsOf(p), r.subtree)));
}
