// Concurrent replays through one browser pool: 1, 5, 10 and 20 replays of the recorded 10-step shop test
// (bench/support.ts) at once, each in its own context, through a pool whose concurrency is that number (one
// Chromium). Per level: wall time of the batch, median/p90/max duration of a replay (asking for a context to the
// end of its last step), peak memory and failures. Each level gets a fresh pool, warmed by one replay.
//
// Memory is sampled every 100 ms: this Node process's VmRSS (it also serves the fixture shop and runs the
// network guard's proxies) plus the VmRSS of every descendant process (Chromium's browser, zygote, utility and
// renderer processes), found through /proc by parent pid. RSS sums count shared pages once per process: an
// upper bound of the memory used. PSS (shared pages split among their sharers) is read near the peak too.
//
//   node --import tsx bench/concurrency.ts
//   BENCH_LEVELS=1,5,10,20,40   other levels (default 1,5,10,20)
import type { BrowserPool } from '../src/browser/context/pool.js';
import { startFixtureApps, type FixtureApps } from '../test/support/fixture-apps.js';
import {
  createBenchPool,
  envInts,
  fixed,
  median,
  mib,
  percentile,
  recordedSteps,
  sampleMemory,
  startMemorySampler,
  table,
  timedReplay,
  watchdog,
} from './support.js';

const levels = envInts('BENCH_LEVELS', [1, 5, 10, 20]);
watchdog(60 + levels.reduce((n, level) => n + 30 + level * 5, 0), 'bench/concurrency');

interface LevelFigures {
  level: number;
  wallMs: number;
  durations: number[];
  failures: string[];
  idle: number;
  peakNode: number;
  peakChildren: number;
  peakPss: number;
  processes: number;
}

async function runLevel(shopUrl: string, level: number): Promise<LevelFigures> {
  const pool: BrowserPool = createBenchPool(level);
  try {
    await timedReplay(pool, shopUrl); // launches Chromium, warms the code paths
    const idleSample = sampleMemory();
    const sampler = startMemorySampler(100);
    const started = performance.now();
    const outcomes = await Promise.allSettled(Array.from({ length: level }, () => timedReplay(pool, shopUrl)));
    const wallMs = performance.now() - started;
    const { peak, peakPss } = await sampler.stop();
    const durations = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    const failures = outcomes.flatMap((o) =>
      o.status === 'rejected' ? [o.reason instanceof Error ? o.reason.message : String(o.reason)] : [],
    );
    return {
      level,
      wallMs,
      durations,
      failures,
      idle: idleSample.node + idleSample.children,
      peakNode: peak.node,
      peakChildren: peak.children,
      peakPss,
      processes: peak.processes,
    };
  } finally {
    await pool.close();
  }
}

let fixture: FixtureApps | undefined;
try {
  fixture = await startFixtureApps();
  const results: LevelFigures[] = [];
  for (const level of levels) results.push(await runLevel(fixture.url, level));

  process.stdout.write(
    `${recordedSteps.length}-step shop replay, N at once through one pool (concurrency N, one Chromium, a context each)\n\n`,
  );
  process.stdout.write(
    table(
      [
        'N',
        'wall ms',
        'replays/s',
        'median ms',
        'p90 ms',
        'max ms',
        'idle MiB',
        'peak MiB',
        'node MiB',
        'chromium MiB',
        'PSS MiB',
        'procs',
        'failures',
      ],
      results.map((r) => [
        r.level,
        fixed(r.wallMs, 0),
        fixed((r.durations.length / r.wallMs) * 1000, 2),
        fixed(median(r.durations), 0),
        fixed(percentile(r.durations, 90), 0),
        fixed(Math.max(...r.durations), 0),
        mib(r.idle),
        mib(r.peakNode + r.peakChildren),
        mib(r.peakNode),
        mib(r.peakChildren),
        mib(r.peakPss),
        r.processes,
        r.failures.length,
      ]),
    ),
  );
  process.stdout.write(
    '\nidle: VmRSS sum after the warm-up replay, before the batch. peak/node/chromium: the highest VmRSS sum sampled every 100 ms\n' +
      'during the batch and its split. PSS: the highest proportional set size read near that peak (shared pages counted once).\n',
  );
  const failed = results.flatMap((r) => r.failures.map((f) => `  N=${r.level}: ${f}`));
  if (failed.length > 0) process.stdout.write(`\nfailures:\n${failed.join('\n')}\n`);
  const top = results.find((r) => r.level === 20);
  if (top)
    process.stdout.write(
      `\ngoal: 20 concurrent replays with none failing: ${top.failures.length === 0 ? 'met' : `NOT met (${top.failures.length} failed)`}\n`,
    );
} finally {
  await fixture?.stop();
}
process.exit(0);
