// The coverage map and the suggestion candidates of a large application (issue 34), pure computation: a map of
// BENCH_PATTERNS page patterns (default 1,000) with two forms each (a layout's search form on every one), and
// BENCH_TESTS enabled tests (default 500) of 30 steps each, half recorded with `at`, half without (their pages
// inferred). Prints the median and p95 of computeCoverage and of suggestionCandidates over BENCH_ITERATIONS runs.
//
//   node --import tsx bench/coverage.ts
import { computeCoverage, type CoveredTest, type MapPattern } from '../src/domain/coverage.js';
import { suggestionCandidates } from '../src/domain/suggestions.js';
import type { Step } from '../src/domain/steps.js';
import { envInt, fixed, median, percentile } from './support.js';

const patterns = envInt('BENCH_PATTERNS', 1_000);
const testCount = envInt('BENCH_TESTS', 500);
const iterations = envInt('BENCH_ITERATIONS', 20);
const base = 'https://big.example.test';

const search = {
  key: 'search:q',
  name: 'Search',
  method: 'get' as const,
  action: '/search',
  fields: [{ label: 'Search', name: 'q', type: 'search', required: false }],
  submit: 'Search',
  search: true,
};
const map: MapPattern[] = Array.from({ length: patterns }, (_, i) => ({
  pattern: `/area${i}/{id}`,
  example: `/area${i}/1`,
  depth: 1 + (i % 4),
  linksIn: i % 7,
  status: 200,
  forms: [
    search,
    {
      key: `edit${i}`,
      name: `Edit ${i}`,
      method: 'post' as const,
      action: `/area${i}/{id}`,
      fields: [
        { label: `Title ${i}`, name: `title${i}`, type: 'text', required: true },
        { label: `Notes ${i}`, name: `notes${i}`, type: 'textarea', required: false },
      ],
      submit: `Save ${i}`,
      search: false,
    },
  ],
}));

const tests: CoveredTest[] = Array.from({ length: testCount }, (_, t) => {
  const withAt = t % 2 === 0;
  const steps: Step[] = Array.from({ length: 30 }, (_, s) => {
    const area = (t * 7 + Math.floor(s / 3)) % patterns;
    const page = `/area${area}/${t}`;
    const step: Step =
      s % 3 === 0
        ? { action: 'navigate', value: page, description: 'open' }
        : s % 3 === 1
          ? { action: 'fill', locator: `getByLabel('Title ${area}')`, value: 'x', description: 'title' }
          : { action: 'assert_visible', locator: "getByText('Saved')", description: 'saved' };
    return withAt ? { ...step, at: page } : step;
  });
  return { id: `t${t}`, name: `Test ${t}`, steps, startUrl: `${base}/`, lastPassedAt: '2026-11-27T00:00:00.000Z' };
});

function time<T>(run: () => T): { ms: number[]; last: T } {
  const ms: number[] = [];
  let last!: T;
  for (let i = 0; i < iterations + 2; i++) {
    const start = performance.now();
    last = run();
    if (i >= 2) ms.push(performance.now() - start);
  }
  return { ms, last };
}

const coverage = time(() => computeCoverage(map, tests, base));
const candidates = time(() => suggestionCandidates(map, coverage.last, { max: 10_000 }));
const steps = testCount * 30;
console.log(
  `coverage of ${patterns} patterns, ${coverage.last.totals.forms.total} forms, ${testCount} tests (${steps} steps):`,
);
console.log(
  `  computeCoverage       median ${fixed(median(coverage.ms))} ms, p95 ${fixed(percentile(coverage.ms, 95))} ms`,
);
console.log(
  `  suggestionCandidates  median ${fixed(median(candidates.ms))} ms, p95 ${fixed(percentile(candidates.ms, 95))} ms (${candidates.last.length} candidates)`,
);
console.log(`  totals ${JSON.stringify(coverage.last.totals)}`);
