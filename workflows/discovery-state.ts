import type { DiscoveryBudget } from '../src/domain/discovery.js';
import type { DiscoveryStopReason } from '../src/domain/discovery-run.js';
import type { DiscoveryCarry, FrontierEntry, VisitOutcome } from './discovery-contract.js';

/** Controls one visit may operate at most (reveal controls, searches): one page must not spend the whole budget. */
export const maxActionsPerVisit = 25;

/** A visit to launch: the URL and how many controls it may operate. */
export interface PlannedVisit {
  url: string;
  pattern: string;
  maxActions: number;
}

/**
 * A discovery's state and the decisions on it, breadth first: a FIFO frontier of admitted URLs, at most `perPattern`
 * URLs of one page pattern admitted (so 1,000 order pages cost two visits), and the budget (pages, actions,
 * minutes of workflow time). The workflow launches the visits this class plans and reports what they found; nothing
 * here awaits or calls an activity, so it is tested without a worker.
 */
export class DiscoveryState {
  private frontier: FrontierEntry[] = [];
  private admitted = new Set<string>();
  private perPattern = new Map<string, number>();
  private reservedActions = 0;
  /** A URL was turned away because the pages budget had no room for it: the discovery cannot end 'explored'. */
  private truncated = false;
  pages = 0;
  actions = 0;
  inFlight = 0;
  /** Visits this run of the chain launched (a continued run starts at 0). */
  startedHere = 0;
  /** Visits that ended (found, or failed for good): what the workflow waits on. */
  settled = 0;
  startedAtMs = 0;
  stateKey: string | null = null;

  /**
   * `wanted`: the pages the discovery's intent asks about (src/domain/discovery-intent.ts). They are visited before
   * the others, and one the frontier has no room for takes the place of the newest page that is not wanted.
   */
  constructor(
    private readonly budget: DiscoveryBudget,
    private readonly limitPerPattern: number,
    private readonly wanted?: (url: string) => boolean,
  ) {}

  /** A fresh discovery: its start page is the first of the frontier. */
  start(nowMs: number, start: FrontierEntry, stateKey: string | null): void {
    this.startedAtMs = nowMs;
    this.stateKey = stateKey;
    this.admit(start);
  }

  /** A continued discovery: the carried frontier and counters, and the URLs already visited (from their rows). */
  restore(carry: DiscoveryCarry, visitedUrls: string[]): void {
    this.frontier = [...carry.frontier];
    this.perPattern = new Map(carry.perPattern);
    this.admitted = new Set([...visitedUrls, ...carry.frontier.map((e) => e.url)]);
    this.pages = carry.pages;
    this.actions = carry.actions;
    this.startedAtMs = carry.startedAtMs;
    this.stateKey = carry.stateKey;
    this.truncated = carry.truncated ?? false;
  }

  /**
   * Puts a URL on the frontier unless it was admitted before, its pattern has had its share, or the pages budget has
   * no room left for it. Every URL on the frontier becomes a page, first in first out, so one beyond
   * `budget.pages - pages - inFlight` would never be visited: keeping it would only grow the frontier, the set of
   * admitted URLs and the continue-as-new carry with every link of every page (a site of a million links).
   */
  admit(entry: FrontierEntry): boolean {
    if (this.admitted.has(entry.url)) return false;
    const count = this.perPattern.get(entry.pattern) ?? 0;
    if (count >= this.limitPerPattern) return false;
    if (this.pages + this.inFlight + this.frontier.length >= this.budget.pages) {
      this.truncated = true;
      if (!this.wanted?.(entry.url) || !this.evictUnwanted()) return false;
    }
    this.admitted.add(entry.url);
    this.perPattern.set(entry.pattern, count + 1);
    this.frontier.push(entry);
    return true;
  }

  /** Up to `slots` visits to launch now, oldest first, within the budget (none once a limit is reached). */
  take(slots: number, nowMs: number): PlannedVisit[] {
    const planned: PlannedVisit[] = [];
    while (planned.length < slots && this.frontier.length > 0 && this.limitReached(nowMs) === null) {
      if (this.pages + this.inFlight >= this.budget.pages) break;
      const first = this.wanted ? this.frontier.findIndex((e) => this.wanted!(e.url)) : -1;
      const [entry] = this.frontier.splice(Math.max(first, 0), 1) as [FrontierEntry];
      const left = this.budget.actions - this.actions - this.reservedActions;
      const maxActions = Math.max(0, Math.min(maxActionsPerVisit, left));
      this.reservedActions += maxActions;
      this.inFlight++;
      this.startedHere++;
      planned.push({ ...entry, maxActions });
    }
    return planned;
  }

  /** A visit came back: its controls count, its links join the frontier (in page order: breadth first). */
  visited(planned: PlannedVisit, outcome: VisitOutcome): void {
    this.release(planned);
    this.pages++;
    this.actions += outcome.actionsUsed;
    for (const link of outcome.links) this.admit(link);
  }

  /** A visit that failed for good (its activity gave up): it counts against the pages, its URL is not tried again. */
  failed(planned: PlannedVisit): void {
    this.release(planned);
    this.pages++;
  }

  /** Why the discovery is over, or null while there is work left (in flight, or on the frontier within budget). */
  stopReason(nowMs: number): DiscoveryStopReason | null {
    if (this.inFlight > 0) return null;
    return this.frontier.length === 0 && !this.truncated ? 'explored' : this.limitReached(nowMs);
  }

  /** Milliseconds until the minutes budget runs out (≤ 0: it has). */
  msLeft(nowMs: number): number {
    return this.startedAtMs + this.budget.minutes * 60_000 - nowMs;
  }

  carry(continuations: number): DiscoveryCarry {
    return {
      frontier: [...this.frontier],
      perPattern: [...this.perPattern],
      pages: this.pages,
      actions: this.actions,
      startedAtMs: this.startedAtMs,
      stateKey: this.stateKey,
      continuations,
      truncated: this.truncated,
    };
  }

  get waiting(): number {
    return this.frontier.length;
  }

  private limitReached(nowMs: number): DiscoveryStopReason | null {
    if (this.pages >= this.budget.pages) return 'pages';
    if (this.actions >= this.budget.actions) return 'actions';
    if (this.msLeft(nowMs) <= 0) return 'minutes';
    return null;
  }

  /** Drops the newest frontier entry the intent does not ask about (it may be admitted again later); false: none. */
  private evictUnwanted(): boolean {
    for (let i = this.frontier.length - 1; i >= 0; i--) {
      const entry = this.frontier[i]!;
      if (this.wanted!(entry.url)) continue;
      this.frontier.splice(i, 1);
      this.admitted.delete(entry.url);
      this.perPattern.set(entry.pattern, (this.perPattern.get(entry.pattern) ?? 1) - 1);
      return true;
    }
    return false;
  }

  private release(planned: PlannedVisit): void {
    this.inFlight--;
    this.settled++;
    this.reservedActions -= planned.maxActions;
  }
}
