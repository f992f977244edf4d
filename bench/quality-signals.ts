// What collecting quality signals adds to a replay: the 10-step shop test (bench/support.ts) through `replaySteps`
// with a SignalCollector (console, exceptions, failed requests, axe-core scans after each navigation and at the
// end), against the same replay without one. Three ways with: `cold`, no document seen before (every page scanned,
// as a burn-in or the first replay after a page changed sees it); `project`, the worker's memory emptied but the
// project's store (src/services/a11y-scans.ts, on PGlite here) holding the documents (as a replay after its burn-in,
// on any worker, sees it); and `warm`, the worker's memory kept (as the later tests of a run see it). One browser of one pool, a fresh context per run, variants in rotating order after
// warm-ups; a run is timed from asking for the context to the collector's last scan.
// First, the signals of the fixture profile page with all four problems are printed (the collector works).
//
//   node --import tsx bench/quality-signals.ts
//   BENCH_ITERATIONS=30   measured runs of each (default 20), after 3 warm-ups of each.
import type { Page } from 'playwright-core';
import { replaySteps } from '../src/browser/replay/replay.js';
import { SignalCollector } from '../src/browser/quality/signals.js';
import { clearScanCache, type ScanCache } from '../src/browser/quality/axe-scan.js';
import { createDatabase, migrateToLatest } from '../src/db/database.js';
import { seedProject } from '../src/db/queries/admin.js';
import { projectScanCache } from '../src/services/a11y-scans.js';
import { RunValues } from '../src/domain/run-values.js';
import type { QualitySignal } from '../src/domain/quality.js';
import type { BrowserPool } from '../src/browser/context/pool.js';
import { allQualityProblems, profileSteps } from '../test/support/fixtures/quality.js';
import {
  envInt,
  median,
  recordedSteps,
  rotatingRuns,
  shopConfigs,
  spread,
  spreadHeader,
  stepTimeoutMs,
  table,
  timedInContext,
  watchdog,
} from './support.js';
import { withBrowserRig } from './rig.js';

const iterations = envInt('BENCH_ITERATIONS', 20);
const warmups = 3;
watchdog(90 + (iterations + warmups) * 4 * 15, 'bench/quality-signals');

async function replay(
  page: Page,
  startUrl: string,
  steps: typeof recordedSteps,
  collect: boolean,
  scanCache?: ScanCache,
): Promise<QualitySignal[]> {
  const collector = collect ? new SignalCollector(page, { scanCache }) : undefined;
  const result = await replaySteps(page, steps, {
    startUrl,
    baseUrl: startUrl,
    values: new RunValues({ configs: shopConfigs }),
    timeoutMs: stepTimeoutMs,
    onStep: (index) => collector?.beforeStep(index),
  });
  const signals = (await collector?.finish()) ?? [];
  if (result.status !== 'PASSED') throw new Error(`replay failed: ${result.error}`);
  return signals;
}

function timed(pool: BrowserPool, shopUrl: string, collect: boolean, scanCache?: ScanCache): Promise<number> {
  return timedInContext(pool, async (page) => {
    await replay(page, `${shopUrl}/shop/login`, recordedSteps, collect, scanCache);
  });
}

const label = {
  cold: 'every document new',
  project: 'documents in the project store',
  warm: 'documents in the worker memory',
} as const;

await withBrowserRig(async ({ fixture, pool }) => {
  const url = fixture.url;

  fixture.quality.setQualityProblems(allQualityProblems);
  const found = await pool.withContext({}, ({ page }) => replay(page, `${url}/quality/`, profileSteps, true));
  process.stdout.write(`Profile page with ${allQualityProblems.join(', ')}: ${found.length} signals\n`);
  for (const s of found)
    process.stdout.write(
      `  ${s.kind} ${s.severity} step ${s.stepIndex} ${s.rule ?? ''} ${s.message.slice(0, 90)} ${s.target?.slice(0, 60) ?? ''}\n`,
    );

  const db = createDatabase({ kind: 'pglite' });
  await migrateToLatest(db);
  const store = projectScanCache({ db }, (await seedProject(db, { organization: 'Bench', project: 'Shop' })).projectId);
  const variants = ['without', 'cold', 'project', 'warm'] as const;
  type Variant = (typeof variants)[number];
  const runs = await rotatingRuns(variants, { warmups, iterations }, (which) => {
    if (which === 'cold' || which === 'project') clearScanCache();
    return timed(pool, url, which !== 'without', which === 'project' ? store : undefined);
  });
  await db.destroy();
  const overhead = (k: Exclude<Variant, 'without'>) => median(runs[k]) / median(runs.without) - 1;
  process.stdout.write(
    `\n${recordedSteps.length}-step shop test (5 documents), one Chromium, fresh context per run; ${iterations} runs each after ${warmups} warm-ups, rotating\n\n`,
  );
  process.stdout.write(
    table(
      ['variant', ...spreadHeader],
      variants.map((k) => [
        k === 'without' ? 'replay without signals' : `replay with signals, ${label[k]}`,
        ...spread(runs[k]),
      ]),
    ),
  );
  for (const k of ['cold', 'project', 'warm'] as const) {
    process.stdout.write(
      `\ncollection overhead, ${label[k]}: median ${(overhead(k) * 100).toFixed(1)}% (goal ≤ 15%: ${overhead(k) <= 0.15 ? 'met' : 'NOT met'})`,
    );
  }
  process.stdout.write('\n');
});
