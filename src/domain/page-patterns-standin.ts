// STAND-IN, TO BE REPLACED AT MERGE (issue 34): the real `normalizeUrl` / `patternOf` are written in
// src/domain/page-patterns.ts by the explorer's author. These two let the discovery workflow, its API and tests run
// before that lands. Imported by src/browser/discovery-standin.ts, activities/discovery.ts and
// src/services/discovery-map.ts: point those imports at page-patterns.ts and delete this file.

/** Scheme and host lower-cased, no fragment, no trailing slash but the root's, query kept as written. */
export function normalizeUrl(url: string): string {
  const u = new URL(url);
  u.hash = '';
  if (u.pathname.length > 1) u.pathname = u.pathname.replace(/\/+$/, '');
  return u.toString();
}

/** The path with id-like segments (numbers, UUIDs, long hex) as `{id}`. */
export function patternOf(url: string): string {
  const path = new URL(url).pathname;
  return path
    .split('/')
    .map((s) => (/^\d+$|^[0-9a-f]{8}-[0-9a-f-]{27}$|^[0-9a-f]{12,}$/i.test(s) ? '{id}' : s))
    .join('/');
}
