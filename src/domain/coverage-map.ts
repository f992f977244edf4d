// A discovery's map as the coverage and the suggestions read it (issue 34): per page pattern, a page of it the
// discovery could load (where a suggested test starts), its title and status, how many links it is from the start
// page and how many other patterns link to it. Pure: built from the map of the stored page rows.
import type { MapPattern } from './coverage.js';
import type { DiscoveryMap } from './discovery-map.js';
import { patternOf } from './page-patterns.js';

const loaded = (status: number) => status >= 200 && status < 400;

/** Path and query of `url` (absolute or not), as a test's goal names a page. */
function pathOf(url: string): string {
  try {
    const parsed = new URL(url, 'http://path.invalid');
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return url;
  }
}

/** The map's patterns with their example page, depth from `startUrl`'s pattern and links in. */
export function mapPatternsOf(map: DiscoveryMap, startUrl: string): MapPattern[] {
  // The start page's pattern is where its visit ended (`/` redirected to `/products` is in `/products`).
  const start =
    map.patterns.find((p) => p.pages.some((page) => page.url === startUrl || page.finalUrl === startUrl))?.pattern ??
    patternOf(startUrl);
  // Breadth first over the links between patterns: the fewest links a user follows from the start page.
  const depth = new Map<string, number>();
  const known = new Set(map.patterns.map((p) => p.pattern));
  if (known.has(start)) depth.set(start, 0);
  const out = new Map<string, string[]>();
  for (const link of map.links) out.set(link.from, [...(out.get(link.from) ?? []), link.to]);
  for (let frontier = [...depth.keys()]; frontier.length > 0;) {
    const next: string[] = [];
    for (const from of frontier)
      for (const to of out.get(from) ?? [])
        if (!depth.has(to)) {
          depth.set(to, depth.get(from)! + 1);
          next.push(to);
        }
    frontier = next;
  }
  const linksIn = new Map<string, number>();
  for (const link of map.links) if (link.from !== link.to) linksIn.set(link.to, (linksIn.get(link.to) ?? 0) + 1);

  return map.patterns.map((p): MapPattern => {
    const page = p.pages.find((pg) => loaded(pg.status) && !pg.error) ?? p.pages[0];
    return {
      pattern: p.pattern,
      ...(page && loaded(page.status) && !page.error && { example: pathOf(page.finalUrl) }),
      ...(page?.title && { title: page.title }),
      ...(depth.has(p.pattern) && { depth: depth.get(p.pattern)! }),
      linksIn: linksIn.get(p.pattern) ?? 0,
      ...(page && { status: page.error ? 0 : page.status }),
      forms: p.forms,
    };
  });
}
