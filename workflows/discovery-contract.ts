// The discovery workflow's contract (workflows/discovery.ts, `discovery:<shortId>`): its input, what one run of its
// chain carries to the next, its result, what a page visit hands back to it, and the blob key of the browser state
// a discovery resumes from.
import type { DiscoveryBudget } from '../src/domain/discovery.js';
import type { DiscoveryStatus, DiscoveryStopReason } from '../src/domain/discovery-run.js';

export const discoveryBlobKeys = {
  /** The resume-from login test's final browser state, replayed once per discovery and read by every visit. */
  browserState: (discoveryShortId: string) => `discoveries/${discoveryShortId}/state.json`,
};

/** A URL waiting for its visit, with the page pattern it was admitted under. */
export interface FrontierEntry {
  url: string;
  pattern: string;
}

export interface DiscoveryInput {
  discoveryId: string;
  discoveryShortId: string;
  projectId: string;
  budget: DiscoveryBudget;
  /** What the team asked to look at: its pages are visited first (src/domain/discovery-intent.ts). */
  intent?: string;
  /** Most URLs of one page pattern visited (default 2, src/domain/discovery-run.ts `defaultPerPattern`). */
  perPattern?: number;
  /** Page visits at once (default 3). */
  concurrency?: number;
  /** Continue as new once this run's history has this many events (default 10,000; tests set it low). */
  maxHistoryEvents?: number;
  /** Set by the workflow itself when it continues as new. */
  carried?: DiscoveryCarry;
}

/** What one run of a discovery's chain hands the next: the frontier and the counters, nothing visited. */
export interface DiscoveryCarry {
  frontier: FrontierEntry[];
  /** URLs admitted per pattern so far (visited or waiting), for the per-pattern limit. */
  perPattern: [pattern: string, admitted: number][];
  pages: number;
  actions: number;
  /** Workflow time the chain started (ms since the epoch): the minutes budget counts from there. */
  startedAtMs: number;
  /** The resume-from browser state's blob key, null when the discovery starts signed out. */
  stateKey: string | null;
  continuations: number;
  /** URLs were turned away for want of pages budget (absent in carries recorded before it existed: false). */
  truncated?: boolean;
}

/**
 * The links of a visit the workflow could ever admit: the first `perPattern` distinct URLs of each pattern, in page
 * order. The workflow admits at most `perPattern` URLs of a pattern over the whole discovery, and a URL among the
 * first `perPattern` of its pattern is either admitted already (and counted) or admitted now, so a later one of the
 * same pattern can never be. A page of 20,000 order links hands the workflow two, not a history event of megabytes
 * (Temporal refuses a payload over 2 MB); the page's row keeps them all for the map.
 */
export function frontierLinks(links: readonly FrontierEntry[], perPattern: number): FrontierEntry[] {
  const kept: FrontierEntry[] = [];
  const seen = new Set<string>();
  const perPatternKept = new Map<string, number>();
  for (const link of links) {
    if (seen.has(link.url)) continue;
    const count = perPatternKept.get(link.pattern) ?? 0;
    if (count >= perPattern) continue;
    seen.add(link.url);
    perPatternKept.set(link.pattern, count + 1);
    kept.push(link);
  }
  return kept;
}

/** What a page visit (the `visitDiscoveryPage` activity) tells the workflow: small, the page itself is in its row. */
export interface VisitOutcome {
  url: string;
  /** The pattern of the URL the page ended on. */
  pattern: string;
  /** Same-origin links found, each with its pattern: those the workflow could admit (`frontierLinks`). */
  links: FrontierEntry[];
  actionsUsed: number;
  /** false: the row was there already (a retry after a worker died): nothing was visited again. */
  visited: boolean;
}

export interface DiscoveryResult {
  status: Extract<DiscoveryStatus, 'COMPLETED' | 'FAILED' | 'CANCELLED'>;
  stopReason: DiscoveryStopReason | null;
  pages: number;
  actions: number;
  /** Times the discovery continued as new to keep its history small. */
  continuations: number;
}
