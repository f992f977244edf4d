// What one discovery page visit costs: breadth-first discoveries of the back office fixture (/d/, 30 page
// patterns, test/support/fixtures/discovery-app.ts) through `visitPage`, one Chromium of one browser pool (network
// guard and egress proxy included), a fresh context per discovery. Each visit is timed from opening its page to
// closing it; visits that operated controls (menus, tabs, dialogs, a search) are shown apart from plain reads.
// A run with no actions allowed shows what the reveals find that plain reading cannot.
//
//   node --import tsx bench/discovery-visit.ts
//   BENCH_ITERATIONS=5   measured discoveries (default 3), after 1 warm-up.
import { exploreBreadthFirst } from '../test/support/discovery-loop.js';
import type { BrowserPool } from '../src/browser/context/pool.js';
import type { VisitedPage } from '../src/domain/discovery.js';
import { envInt, fixed, median, percentile, table, watchdog } from './support.js';
import { withBrowserRig } from './rig.js';

const iterations = envInt('BENCH_ITERATIONS', 3);
watchdog(120 + (iterations + 2) * 120, 'bench/discovery-visit');

interface Timed {
  visit: VisitedPage;
  ms: number;
}

async function discovery(pool: BrowserPool, url: string, maxActionsPerPage: number) {
  const timed: Timed[] = [];
  const started = performance.now();
  await pool.withContext({}, ({ context }) =>
    exploreBreadthFirst(context, [`${url}/d/`], {
      origin: url,
      maxPages: 200,
      maxActionsPerPage,
      onVisit: (visit, ms) => timed.push({ visit, ms }),
    }),
  );
  return { timed, totalMs: performance.now() - started };
}

await withBrowserRig(async ({ fixture, pool }) => {
  await discovery(pool, fixture.url, 10);
  const runs = [];
  for (let i = 0; i < iterations; i += 1) runs.push(await discovery(pool, fixture.url, 10));
  const plain = runs.flatMap((r) => r.timed.filter((t) => t.visit.actionsUsed === 0).map((t) => t.ms));
  const acting = runs.flatMap((r) => r.timed.filter((t) => t.visit.actionsUsed > 0).map((t) => t.ms));
  const all = runs.flatMap((r) => r.timed.map((t) => t.ms));
  const actions = runs.flatMap((r) => r.timed.map((t) => t.visit.actionsUsed));
  const last = runs.at(-1)!;
  const patterns = new Set(last.timed.map((t) => t.visit.pattern));
  const blind = await discovery(pool, fixture.url, 0);
  const blindPatterns = new Set(blind.timed.map((t) => t.visit.pattern));
  const row = (label: string, values: number[]) => [
    label,
    values.length,
    fixed(median(values)),
    fixed(percentile(values, 90)),
    fixed(Math.max(...values)),
  ];
  console.log(`bench/discovery-visit: ${iterations} discoveries of the back office fixture (/d/), after a warm-up\n`);
  console.log(
    table(
      ['visits', 'count', 'median ms', 'p90 ms', 'max ms'],
      [row('no control operated', plain), row('operated controls', acting), row('all', all)],
    ),
  );
  console.log(
    table(
      ['discovery', 'pages', 'patterns', 'actions', 'wall s'],
      [
        [
          'as the tests run it',
          last.timed.length,
          patterns.size,
          actions.reduce((a, b) => a + b, 0) / iterations,
          fixed(median(runs.map((r) => r.totalMs)) / 1000, 2),
        ],
        ['no actions allowed', blind.timed.length, blindPatterns.size, 0, fixed(blind.totalMs / 1000, 2)],
      ],
    ),
  );
  console.log(
    `patterns only operating controls finds: ${[...patterns]
      .filter((p) => !blindPatterns.has(p))
      .sort()
      .join(', ')}`,
  );
});
