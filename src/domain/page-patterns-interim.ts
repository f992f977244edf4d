// INTERIM (issue 34): a minimal `patternOf` so the coverage map and the suggestions build before the explorer's
// src/domain/page-patterns.ts is merged. At the merge, import `patternOf` from there instead and delete this file:
// the coverage must group a step's page exactly as the discovery grouped the pages it visited.

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const number = /^\d+$/;
// A long hex or mixed letters-and-digits token (a hash, an object id), not a word such as `v2` or `2fa`.
const token = /^(?=.*\d)(?=.*[a-z])[0-9a-z_-]{16,}$/i;

/** The path pattern of a page: `/orders/123?tab=notes` is `/orders/{id}`. Query and fragment are not part of it. */
export function patternOf(path: string): string {
  const bare = path.split(/[?#]/, 1)[0] || '/';
  const segments = bare.split('/').map((s) => (number.test(s) || uuid.test(s) || token.test(s) ? '{id}' : s));
  const joined = segments.join('/');
  return joined.length > 1 && joined.endsWith('/') ? joined.slice(0, -1) : joined;
}
