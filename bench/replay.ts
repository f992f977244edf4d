// What replaying recorded steps costs next to the same test hand-written with Playwright: the 10-step shop
// test (bench/support.ts) through `replaySteps`, against the same actions as plain `page.getByRole(...)` calls.
// Both run in one browser of one pool (network guard included), a fresh context per run, alternating
// (AB, BA, AB, ...) after warm-ups; each run is timed from asking for the context to the end of the last step.
//
//   node --import tsx bench/replay.ts
//   BENCH_ITERATIONS=50   measured runs of each (default 20), after 3 warm-ups of each.
import type { Page } from 'playwright-core';
import { startFixtureApps, type FixtureApps } from '../test/support/fixture-apps.js';
import type { BrowserPool } from '../src/browser/context/pool.js';
import {
  createBenchPool,
  envInt,
  fixed,
  median,
  percentile,
  recordedSteps,
  replayShop,
  shopConfigs,
  table,
  timedReplay,
  watchdog,
} from './support.js';

const iterations = envInt('BENCH_ITERATIONS', 20);
const warmups = 3;
watchdog(60 + (iterations + warmups) * 2 * 10, 'bench/replay');

/** The recorded steps as an engineer would write them with Playwright, one call per step. */
async function handWritten(page: Page, shopUrl: string): Promise<void> {
  await page.goto(`${shopUrl}/shop/login`);
  await page.getByRole('textbox', { name: 'Email' }).fill(shopConfigs.SHOP_EMAIL!);
  await page.getByRole('textbox', { name: 'Password' }).fill(shopConfigs.SHOP_PASSWORD!);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Add Coffee mug to cart' }).click();
  await page.getByRole('button', { name: 'Add Tea pot to cart' }).click();
  await page.getByRole('button', { name: 'Add Water bottle to cart' }).click();
  await page.getByRole('link', { name: 'Cart (3)' }).click();
  // playwright-core has no `expect`: waiting for the element with the text is the plain-API assertion.
  await page.getByText('Total: 60.50').waitFor();
  await page.getByRole('button', { name: 'Checkout' }).click();
  await page.getByRole('heading', { name: 'Checkout' }).waitFor();
}

async function timedHandWritten(pool: BrowserPool, shopUrl: string): Promise<number> {
  const started = performance.now();
  return pool.withContext({}, async ({ page }) => {
    await handWritten(page, shopUrl);
    return performance.now() - started;
  });
}

let fixture: FixtureApps | undefined;
let pool: BrowserPool | undefined;
try {
  fixture = await startFixtureApps();
  pool = createBenchPool(1);
  const shopUrl = fixture.url;

  // The recording must pass before its speed means anything.
  const check = await pool.withContext({}, ({ page }) => replayShop(page, shopUrl));
  if (check.status !== 'PASSED') throw new Error(`the recorded test does not pass: ${check.error}`);

  const runs = { replay: [] as number[], hand: [] as number[] };
  for (let i = 0; i < warmups + iterations; i++) {
    const order = i % 2 === 0 ? (['replay', 'hand'] as const) : (['hand', 'replay'] as const);
    for (const which of order) {
      const ms = which === 'replay' ? await timedReplay(pool, shopUrl) : await timedHandWritten(pool, shopUrl);
      if (i >= warmups) runs[which].push(ms);
    }
  }

  const ratio = median(runs.replay) / median(runs.hand);
  process.stdout.write(
    `${recordedSteps.length}-step shop test, one Chromium, fresh context per run; ${iterations} runs each after ${warmups} warm-ups, alternating\n\n`,
  );
  process.stdout.write(
    table(
      ['variant', 'median ms', 'p90 ms', 'min ms', 'max ms'],
      [
        [
          'replaySteps (recorded)',
          fixed(median(runs.replay)),
          fixed(percentile(runs.replay, 90)),
          fixed(Math.min(...runs.replay)),
          fixed(Math.max(...runs.replay)),
        ],
        [
          'hand-written Playwright',
          fixed(median(runs.hand)),
          fixed(percentile(runs.hand, 90)),
          fixed(Math.min(...runs.hand)),
          fixed(Math.max(...runs.hand)),
        ],
      ],
    ),
  );
  process.stdout.write(
    `\nreplay / hand-written: median ${ratio.toFixed(2)}, p90 ${(percentile(runs.replay, 90) / percentile(runs.hand, 90)).toFixed(2)} (goal ≤ 1.10: ${ratio <= 1.1 ? 'met' : 'NOT met'})\n`,
  );
} finally {
  await pool?.close();
  await fixture?.stop();
}
process.exit(0);
