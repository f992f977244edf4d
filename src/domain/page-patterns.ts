// Discovery (issue 34): which URLs are the same page, and which ones a discovery visits next. Pure.
//
// A discovery explores breadth first and groups pages by pattern: `/orders/123` and `/orders/456` are one page,
// `/orders/{id}`, so an application with 1,000 orders costs a couple of visits of the pattern, not 1,000.
import { isUnsafeUrl } from './discovery-safety.js';

/** Query parameters that only track where a click came from: the same page with or without them. */
const trackingParams =
  /^(utm_.*|gclid|gclsrc|dclid|fbclid|msclkid|yclid|twclid|igshid|mc_cid|mc_eid|_ga|_gl|_hsenc|_hsmi|mkt_tok|vero_id|oly_anon_id|oly_enc_id)$/i;

/** Files a browser downloads rather than shows: never a page of the application. */
const downloadExtensions = new Set(
  (
    'pdf zip gz tgz tar bz2 xz 7z rar exe dmg msi pkg deb rpm apk iso bin img doc docx xls xlsx ppt pptx odt ods ' +
    'odp csv tsv rtf epub jpg jpeg png gif webp avif svg ico bmp tif tiff mp3 mp4 m4a mov avi mkv webm wav ogg flac ' +
    'woff woff2 ttf otf eot css js mjs map json xml rss atom txt ics vcf'
  ).split(' '),
);

/**
 * The URL a discovery stores and compares for `url` (absolute, or relative to `origin`): the fragment dropped,
 * tracking parameters dropped, the other parameters sorted by name (stable among equal names), the origin's own
 * scheme and host. Null when it is not a page of the origin: another origin, `mailto:`, `javascript:`, `tel:`,
 * `data:`, or a file download such as `.pdf` or `.zip`.
 */
export function normalizeUrl(url: string, origin: string): string | null {
  let base: URL;
  let parsed: URL;
  try {
    base = new URL(origin);
    parsed = new URL(url.trim(), base);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  if (parsed.origin !== base.origin) return null;
  if (isDownload(parsed.pathname)) return null;
  const params = [...parsed.searchParams].filter(([name]) => !trackingParams.test(name));
  params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const query = new URLSearchParams(params).toString();
  return `${base.origin}${parsed.pathname}${query ? `?${query}` : ''}`;
}

function isDownload(pathname: string): boolean {
  const last = pathname.slice(pathname.lastIndexOf('/') + 1);
  const dot = last.lastIndexOf('.');
  return dot > 0 && downloadExtensions.has(last.slice(dot + 1).toLowerCase());
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const hex = /^[0-9a-f]{8,}$/i;
const longToken = /^[A-Za-z0-9_~.-]{20,}$/;

/**
 * Whether a path segment names one record rather than a kind of page: a number, a UUID, a hex id, a date, a
 * slug or code with digits in it (`ORD-1001`, `sku-48213`, `2024-05`), or a long opaque token. Words stay words
 * (`/orders/new`, `/settings/profile`), and so do short codes like `v2` or `h1`.
 */
export function isIdSegment(segment: string): boolean {
  let text = segment;
  try {
    text = decodeURIComponent(segment);
  } catch {
    // Not valid percent-encoding: judge the raw text.
  }
  if (text === '') return false;
  if (/^\d+$/.test(text) || uuid.test(text)) return true;
  const digits = (text.match(/\d/g) ?? []).length;
  if (hex.test(text) && digits > 0) return true;
  if (digits > 0 && text.length >= 5) return true;
  return longToken.test(text) && /[a-z]/.test(text) && /[A-Z]/.test(text);
}

/**
 * The pattern of a path (or of a whole URL, whose origin is ignored): id segments become `{id}`, and a query
 * keeps its parameter names only, sorted: `/orders/123?page=2&sort=date` is `/orders/{id}?page=&sort=`.
 */
export function patternOf(pathOrUrl: string): string {
  let url: URL;
  try {
    url = new URL(pathOrUrl, 'http://pattern.invalid');
  } catch {
    return pathOrUrl;
  }
  const path = url.pathname
    .split('/')
    .map((segment) => (isIdSegment(segment) ? '{id}' : segment))
    .join('/');
  const names = [...new Set([...url.searchParams.keys()].filter((name) => !trackingParams.test(name)))].sort();
  return names.length ? `${path}?${names.map((name) => `${name}=`).join('&')}` : path;
}

/**
 * The links worth visiting next, breadth first: in order, each URL once, skipping the `seen` ones and any
 * whose pattern already has `perPatternLimit` URLs counted in `visitedPatterns` (pattern to the URLs visited or
 * queued) or picked earlier in this call, and any whose path signs out or deletes (`isUnsafeUrl`), whatever
 * its link was called. The caller adds the answer to its queue and counts.
 * Links are expected normalized (`normalizeUrl`); plain JSON in and out, so a workflow can keep the state.
 */
export function nextUrls(
  visitedPatterns: Readonly<Record<string, number>>,
  links: readonly string[],
  perPatternLimit = 2,
  seen: ReadonlySet<string> | readonly string[] = [],
): string[] {
  const known = new Set<string>(seen);
  const counts = new Map<string, number>();
  const picked: string[] = [];
  for (const link of links) {
    if (known.has(link)) continue;
    known.add(link);
    if (isUnsafeUrl(link)) continue;
    const pattern = patternOf(link);
    const count = counts.get(pattern) ?? visitedPatterns[pattern] ?? 0;
    if (count >= perPatternLimit) continue;
    counts.set(pattern, count + 1);
    picked.push(link);
  }
  return picked;
}
