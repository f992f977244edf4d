// What replaying recorded steps costs next to the same test hand-written with Playwright: the 10-step shop
// test (bench/support.ts) through `replaySteps`, against the same actions as plain `page.getByRole(...)` calls.
// Both run in one browser of one pool (network guard included), a fresh context per run, alternating
// (AB, BA, AB, ...) after warm-ups; each run is timed from asking for the context to the end of the last step.
//
//   node --import tsx bench/replay.ts
//   BENCH_ITERATIONS=50   measured runs of each (default 20), after 3 warm-ups of each.
import type { Page } from 'playwright-core';
import {
  envInt,
  median,
  percentile,
  recordedSteps,
  replayShop,
  rotatingRuns,
  shopConfigs,
  spread,
  spreadHeader,
  table,
  timedInContext,
  timedReplay,
  watchdog,
} from './support.js';
import { withBrowserRig } from './rig.js';

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

await withBrowserRig(async ({ fixture, pool }) => {
  const shopUrl = fixture.url;

  // The recording must pass before its speed means anything.
  const check = await pool.withContext({}, ({ page }) => replayShop(page, shopUrl));
  if (check.status !== 'PASSED') throw new Error(`the recorded test does not pass: ${check.error}`);

  const runs = await rotatingRuns(['replay', 'hand'], { warmups, iterations }, (which) =>
    which === 'replay' ? timedReplay(pool, shopUrl) : timedInContext(pool, (page) => handWritten(page, shopUrl)),
  );

  const ratio = median(runs.replay) / median(runs.hand);
  process.stdout.write(
    `${recordedSteps.length}-step shop test, one Chromium, fresh context per run; ${iterations} runs each after ${warmups} warm-ups, alternating\n\n`,
  );
  process.stdout.write(
    table(
      ['variant', ...spreadHeader],
      [
        ['replaySteps (recorded)', ...spread(runs.replay)],
        ['hand-written Playwright', ...spread(runs.hand)],
      ],
    ),
  );
  process.stdout.write(
    `\nreplay / hand-written: median ${ratio.toFixed(2)}, p90 ${(percentile(runs.replay, 90) / percentile(runs.hand, 90)).toFixed(2)} (goal ≤ 1.10: ${ratio <= 1.1 ? 'met' : 'NOT met'})\n`,
  );
});
process.exit(0);
