// Quality signals (what a page logged, threw, failed to load, or what axe-core found) and the rules that turn them
// into project issues: one fingerprint per problem, whatever run, environment or record id showed it. Pure.

export const signalKinds = ['console', 'exception', 'network', 'a11y'] as const;
export type SignalKind = (typeof signalKinds)[number];

/** axe-core's impact scale, used for every kind so issues sort on one scale. */
export const severities = ['critical', 'serious', 'moderate', 'minor'] as const;
export type Severity = (typeof severities)[number];

export const issueStatuses = ['open', 'resolved', 'ignored'] as const;
export type IssueStatus = (typeof issueStatuses)[number];

export interface QualitySignal {
  kind: SignalKind;
  severity: Severity;
  /** What the page said (console, exception), the request and its outcome (network), or the axe rule's help. */
  message: string;
  /** a11y: the axe rule id (e.g. `label`); network: the HTTP status or the network error. */
  rule?: string;
  /** a11y: the element (its selector and markup), so a review can name the control. */
  target?: string;
  /** The page it happened on (the top document's URL). */
  url: string;
  /** The step it followed, 0-based; -1 before the first step (opening the start page). */
  stepIndex: number;
}

export type SignalCounts = Record<SignalKind, number>;

export const emptyCounts = (): SignalCounts => ({ console: 0, exception: 0, network: 0, a11y: 0 });

export function countSignals(signals: QualitySignal[]): SignalCounts {
  const counts = emptyCounts();
  for (const s of signals) counts[s.kind]++;
  return counts;
}

const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const hash = /\b[0-9a-f]{12,}\b/gi;

/**
 * The page a URL is an instance of: the path only (the same page on another host or environment is the same page),
 * each segment with a digit in it (an id, a number, a uuid, a hash) as `:id`; query and fragment dropped.
 */
export function pageTemplate(url: string): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    path = url.split(/[?#]/)[0] ?? url;
  }
  return (
    path
      .split('/')
      .map((s) => (/\d/.test(s) ? ':id' : s))
      .join('/') || '/'
  );
}

/** A message with what changes from one occurrence to the next taken out: URLs become their page, ids and numbers go. */
export function normaliseMessage(message: string): string {
  return (
    message
      .replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'")]+/gi, (u) => pageTemplate(u))
      .replace(uuid, ':id')
      // Decimals first: the fraction of "657.7180662596369" is no hash; then hashes (an all-digit one too), then numbers.
      .replace(/\d+\.\d+/g, 'N')
      .replace(hash, ':id')
      .replace(/\d+/g, 'N')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 300)
  );
}

/** What identifies a problem across runs: its kind, its normalised message or rule (and element), and its page. */
export function fingerprintKey(signal: QualitySignal): string {
  const what =
    signal.kind === 'a11y'
      ? `${signal.rule ?? ''} ${normaliseMessage(signal.target ?? '')}`
      : signal.kind === 'network'
        ? `${signal.rule ?? ''} ${normaliseMessage(signal.message)}`
        : normaliseMessage(signal.message);
  return `${signal.kind}|${what}|${pageTemplate(signal.url)}`;
}

/** A short title for the issue a signal starts. */
export function issueTitle(signal: QualitySignal): string {
  const text =
    signal.kind === 'a11y'
      ? `${signal.rule}: ${signal.message}${signal.target ? ` (${signal.target})` : ''}`
      : signal.message;
  return text.replace(/\s+/g, ' ').trim().slice(0, 200);
}

export const severityRank = (s: Severity): number => severities.indexOf(s);

/** The more severe of two. */
export const worse = (a: Severity, b: Severity): Severity => (severityRank(a) <= severityRank(b) ? a : b);

/** A problem that blocks a change on its own: an uncaught exception, or a serious or critical a11y violation. */
export function isBlocking(issue: { kind: SignalKind; severity: Severity }): boolean {
  return (
    issue.kind === 'exception' ||
    (issue.kind === 'a11y' && (issue.severity === 'serious' || issue.severity === 'critical'))
  );
}

/** The default number of clean runs (of the tests that saw it) after which an open issue resolves itself. */
export const defaultIssueResolveAfterRuns = 3;
export const maxIssueResolveAfterRuns = 50;

/** Whether a request URL matches one of a project's ignore patterns (`*` any run of characters; otherwise a substring). */
export function ignoredUrl(url: string, patterns: string[]): boolean {
  return patterns.some((p) => {
    if (!p.includes('*')) return url.includes(p);
    const re = new RegExp(
      `^${p
        .split('*')
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    );
    return re.test(url);
  });
}

/** A problem as a change review names it: what, where, how bad. */
export interface QualityFinding {
  kind: SignalKind;
  severity: Severity;
  /** For a11y the axe rule and the element (`label: Form elements must have labels (#email <input …>)`). */
  title: string;
  page: string;
}

/** One test's signals on a preview against its latest run on the base environment (the baseline). */
export interface QualityDelta {
  new: QualityFinding[];
  fixed: QualityFinding[];
  unchanged: number;
}

/** Most findings of each list a review carries per test (the counts stay exact through `newCount`/`fixedCount`). */
export const maxDeltaFindings = 10;

/** Compares two tests' signals by fingerprint; each side's findings once per fingerprint. */
export function compareSignals<T extends QualityFinding & { fingerprint: string }>(
  preview: T[],
  baseline: T[],
): QualityDelta & { newCount: number; fixedCount: number } {
  const distinct = (list: T[]) => [...new Map(list.map((s) => [s.fingerprint, s])).values()];
  const before = new Set(baseline.map((s) => s.fingerprint));
  const after = new Set(preview.map((s) => s.fingerprint));
  const strip = ({ kind, severity, title, page }: T): QualityFinding => ({ kind, severity, title, page });
  const added = distinct(preview)
    .filter((s) => !before.has(s.fingerprint))
    .sort((a, b) => severityRank(a.severity) - severityRank(b.severity));
  const fixed = distinct(baseline).filter((s) => !after.has(s.fingerprint));
  return {
    new: added.slice(0, maxDeltaFindings).map(strip),
    fixed: fixed.slice(0, maxDeltaFindings).map(strip),
    unchanged: distinct(preview).length - added.length,
    newCount: added.length,
    fixedCount: fixed.length,
  };
}
