// A breadth-first discovery without Temporal: visitPage on one page after another, the frontier kept by
// nextUrls. What the discovery workflow does durably, done in a loop, for the explorer's tests and its bench.
import type { BrowserContext } from 'playwright-core';
import { visitPage } from '../../src/browser/discovery/visit-page.js';
import type { VisitedPage } from '../../src/domain/discovery.js';
import { nextUrls, normalizeUrl, patternOf } from '../../src/domain/page-patterns.js';

export interface LoopOptions {
  origin: string;
  maxPages: number;
  /** URLs visited at most per pattern. */
  perPatternLimit?: number;
  maxActionsPerPage?: number;
  timeoutMs?: number;
  /** Called after each visit with its wall time. */
  onVisit?: (visit: VisitedPage, ms: number) => void;
}

export async function exploreBreadthFirst(
  context: BrowserContext,
  start: string[],
  options: LoopOptions,
): Promise<VisitedPage[]> {
  const limit = options.perPatternLimit ?? 2;
  const counts: Record<string, number> = {};
  const seen = new Set<string>();
  const queue: string[] = [];
  const admit = (links: string[]) => {
    for (const url of nextUrls(counts, links, limit, seen)) {
      queue.push(url);
      seen.add(url);
      counts[patternOf(url)] = (counts[patternOf(url)] ?? 0) + 1;
    }
  };
  admit(start.map((url) => normalizeUrl(url, options.origin)).filter((url): url is string => url !== null));
  const visits: VisitedPage[] = [];
  const skip: string[] = [];
  while (queue.length > 0 && visits.length < options.maxPages) {
    const url = queue.shift()!;
    const started = performance.now();
    const visit = await visitPage(context, url, {
      origin: options.origin,
      timeoutMs: options.timeoutMs ?? 15_000,
      maxActions: options.maxActionsPerPage ?? 10,
      skip,
    });
    options.onVisit?.(visit, performance.now() - started);
    visits.push(visit);
    skip.push(...(visit.operated ?? []));
    if (!seen.has(visit.finalUrl)) {
      // Redirected to a URL not queued: it counts as a visit of its own pattern.
      seen.add(visit.finalUrl);
      counts[visit.pattern] = (counts[visit.pattern] ?? 0) + 1;
    }
    admit(visit.links);
  }
  return visits;
}
