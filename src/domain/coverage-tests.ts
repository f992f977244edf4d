// The tests a coverage map counts, as stored: each starts where it really starts. A test that resumes from another
// starts where that one ended (the page of its last step, src/domain/step-pages.ts), not on the environment's URL.
import type { CoveredTest } from './coverage.js';
import { pagesOfSteps } from './step-pages.js';
import type { Step } from './steps.js';

export interface CoverageTestRow {
  id: string;
  name: string;
  enabled: boolean;
  /** Recorded steps, null before a burn-in recorded any. */
  steps: Step[] | null;
  resumeFromId: string | null;
  /** ISO time of its last passing run, null when none passed. */
  lastPassedAt: string | null;
}

/**
 * The enabled tests with recorded steps, each with its start URL. `rows` may hold disabled tests: a dependency is
 * followed even when it is disabled, its steps still run first.
 */
export function coveredTests(rows: readonly CoverageTestRow[], environmentUrl: string): CoveredTest[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const startOf = (row: CoverageTestRow): string => {
    // The chain of dependencies, root first. A missing one or one without steps ends it; a cycle (which burn-in
    // refuses) leaves the environment's URL, the best known.
    const chain: CoverageTestRow[] = [];
    for (let dep = row.resumeFromId ? byId.get(row.resumeFromId) : undefined; dep?.steps?.length;) {
      if (dep.id === row.id || chain.includes(dep)) return environmentUrl;
      chain.unshift(dep);
      dep = dep.resumeFromId ? byId.get(dep.resumeFromId) : undefined;
    }
    let start = environmentUrl;
    for (const dep of chain) {
      const end = pagesOfSteps(dep.steps!, start, environmentUrl).at(-1)?.page;
      start = end ? new URL(end, environmentUrl).toString() : environmentUrl;
    }
    return start;
  };
  return rows
    .filter((r) => r.enabled && r.steps?.length)
    .map((r) => ({
      id: r.id,
      name: r.name,
      steps: r.steps!,
      startUrl: startOf(r),
      lastPassedAt: r.lastPassedAt,
    }));
}
