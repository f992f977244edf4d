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
}

/** What a page visit (the `visitDiscoveryPage` activity) tells the workflow: small, the page itself is in its row. */
export interface VisitOutcome {
  url: string;
  /** The pattern of the URL the page ended on. */
  pattern: string;
  /** Same-origin links found, each with its pattern. */
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
