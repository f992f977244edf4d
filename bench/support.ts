// Shared by the browser benchmarks (replay, burn-in-prompt, concurrency): the recorded shop test, the browser
// pool they run in, small statistics, a table printer and a memory sampler for this process and its Chromium.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import type { DB } from '../src/db/database.js';
import { seedProject } from '../src/db/queries/admin.js';
import { createApplication } from '../src/db/queries/applications.js';
import { createEnvironment } from '../src/db/queries/environments.js';
import { createNetworkGuard } from '../src/browser/context/network-guard.js';
import { createBrowserPool, type BrowserPool } from '../src/browser/context/pool.js';
import { replaySteps, type ReplayResult } from '../src/browser/replay/replay.js';
import { RunValues } from '../src/domain/run-values.js';
import type { Step } from '../src/domain/steps.js';
import { loadPrograms } from '../src/programs.js';
import type { WorkerSettings } from '../src/worker/worker.js';
import { shopCredentials } from '../test/support/fixture-apps.js';
import { descendants } from '../test/support/processes.js';

/** Per-step timeout, as the worker uses by default (PROCTOR_STEP_TIMEOUT_MS). */
export const stepTimeoutMs = 10_000;

export const shopConfigs: Record<string, string> = {
  SHOP_EMAIL: shopCredentials.email,
  SHOP_PASSWORD: shopCredentials.password,
};

/** A step on the element of this role and name, recorded as `locatorForRef` writes it (no fallbacks unless given). */
function roleStep(
  action: Step['action'],
  role: string,
  name: string,
  description: string,
  more: Partial<Step> = {},
): Step {
  return {
    action,
    locator: `getByRole('${role}', { name: '${name}' })`,
    fallbacks: [],
    target: { role, name },
    description,
    ...more,
  };
}

/**
 * The 10-step shop test exactly as burn-in records it (locators from `locatorForRef`, fallbacks and targets included): sign
 * in, add the three products, open the cart, check the total, go to checkout, see its heading. Recorded by
 * `runAgent` on the fixture shop with a scripted LLM picking these elements.
 */
export const recordedSteps: Step[] = [
  roleStep('fill', 'textbox', 'Email', 'Type the shopper email', {
    fallbacks: ['locator(\'input[name="email"]\')'],
    value: '{{SHOP_EMAIL}}',
  }),
  roleStep('fill', 'textbox', 'Password', 'Type the password', {
    fallbacks: ['locator(\'input[name="password"]\')'],
    value: '{{SHOP_PASSWORD}}',
  }),
  roleStep('click', 'button', 'Sign in', 'Sign in'),
  roleStep('click', 'button', 'Add Coffee mug to cart', 'Add the coffee mug to the cart'),
  roleStep('click', 'button', 'Add Tea pot to cart', 'Add the tea pot to the cart'),
  roleStep('click', 'button', 'Add Water bottle to cart', 'Add the water bottle to the cart'),
  roleStep('click', 'link', 'Cart (3)', 'Open the cart'),
  {
    action: 'assert_text',
    locator: "getByText('Total:')",
    fallbacks: [],
    value: 'Total: 60.50',
    description: 'The cart total is 60.50',
  },
  roleStep('click', 'button', 'Checkout', 'Go to checkout'),
  roleStep('assert_visible', 'heading', 'Checkout', 'The checkout page is shown'),
];

/** A pool as the worker builds it (same flags, network guard, one context per job), allowing 127.0.0.1. */
export function createBenchPool(concurrency: number): BrowserPool {
  const executablePath = loadPrograms().chromium;
  if (!executablePath) throw new Error('Chromium not found: set PROCTOR_CHROMIUM_PATH or run npm run setup');
  return createBrowserPool({
    executablePath,
    concurrency,
    networkGuard: createNetworkGuard({ allowPrivateNetworks: true }),
  });
}

/** The worker settings of a benchmark: `concurrency` browser contexts, 127.0.0.1 allowed, no LLM, no email. */
export function benchWorkerSettings(concurrency: number): WorkerSettings {
  return {
    browser: { executablePath: loadPrograms().chromium, concurrency, allowPrivateNetworks: true },
    stepTimeoutMs,
    notify: { appUrl: 'https://app.proctor.test' },
  };
}

export function replayShop(page: Page, shopUrl: string): Promise<ReplayResult> {
  const startUrl = `${shopUrl}/shop/login`;
  return replaySteps(page, recordedSteps, {
    startUrl,
    baseUrl: startUrl,
    values: new RunValues({ configs: shopConfigs }),
    timeoutMs: stepTimeoutMs,
  });
}

/**
 * `run` in its own context, timed from asking the pool for a context to the end of `run` (the context's closing is
 * not counted).
 */
export async function timedInContext(pool: BrowserPool, run: (page: Page) => Promise<void>): Promise<number> {
  const started = performance.now();
  return pool.withContext({}, async ({ page }) => {
    await run(page);
    return performance.now() - started;
  });
}

/** One replay of the shop test, timed as timedInContext does. Throws when the replay fails. */
export function timedReplay(pool: BrowserPool, shopUrl: string): Promise<number> {
  return timedInContext(pool, async (page) => {
    const result = await replayShop(page, shopUrl);
    if (result.status !== 'PASSED') throw new Error(`replay failed: ${result.error}`);
  });
}

/**
 * `warmups` and then `iterations` rounds that each time every variant once, the order rotating by one each round
 * (with two variants: AB, BA, AB, ...) so that neither always runs first; the timings of the measured rounds.
 */
export async function rotatingRuns<V extends string>(
  variants: readonly V[],
  rounds: { warmups: number; iterations: number },
  time: (variant: V) => Promise<number>,
): Promise<Record<V, number[]>> {
  const runs = Object.fromEntries(variants.map((v) => [v, [] as number[]])) as Record<V, number[]>;
  for (let i = 0; i < rounds.warmups + rounds.iterations; i++) {
    for (let j = 0; j < variants.length; j++) {
      const variant = variants[(i + j) % variants.length]!;
      const ms = await time(variant);
      if (i >= rounds.warmups) runs[variant].push(ms);
    }
  }
  return runs;
}

/** Whatever hangs, the process ends (Playwright kills its browsers on exit). */
export function watchdog(seconds: number, name: string): void {
  setTimeout(() => {
    process.stderr.write(`${name}: timed out after ${seconds} s\n`);
    process.exit(1);
  }, seconds * 1000).unref();
}

export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${raw}`);
  return value;
}

/** A comma-separated list of whole numbers, each at least `min` (`BENCH_LEVELS=1,5,10`); `fallback` when unset. */
export function envInts(name: string, fallback: number[], min = 1): number[] {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  return raw.split(',').map((s) => {
    const n = Number(s.trim());
    if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be integers >= ${min}, got ${s}`);
    return n;
  });
}

// ---- statistics and output

/** Nearest-rank percentile (p in 0..100) of unsorted values. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export const mean = (values: number[]): number => values.reduce((a, b) => a + b, 0) / values.length;

/** A fixed-width table: the first column left-aligned, the others right-aligned. */
export function table(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n') + '\n';
}

export const fixed = (n: number, digits = 1): string => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

/** The header of timing columns that `spread` fills. */
export const spreadHeader = ['median ms', 'p90 ms', 'min ms', 'max ms'];

/** How a set of timings spreads: median, p90, min and max, to 0.1 ms. */
export const spread = (ms: number[]): string[] => [
  fixed(median(ms)),
  fixed(percentile(ms, 90)),
  fixed(Math.min(...ms)),
  fixed(Math.max(...ms)),
];
export const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(0);

// ---- memory

/** VmRSS in bytes of a process, 0 when it is gone or has no memory of its own (a zombie, a kernel thread). */
function vmRss(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export interface MemorySample {
  node: number;
  /** Sum of VmRSS over every descendant process (Chromium's browser, zygotes, GPU/utility and renderer processes). */
  children: number;
  processes: number;
}

export function sampleMemory(): MemorySample {
  const pids = descendants(process.pid);
  return { node: vmRss(process.pid), children: pids.reduce((sum, pid) => sum + vmRss(pid), 0), processes: pids.length };
}

/** Proportional set size (shared pages divided among their sharers) of this process and its descendants, in bytes. */
export async function totalPss(): Promise<number> {
  const sizes = await Promise.all(
    [process.pid, ...descendants(process.pid)].map(async (pid) => {
      try {
        const match = /^Pss:\s+(\d+) kB/m.exec(await readFile(`/proc/${pid}/smaps_rollup`, 'utf8'));
        return match ? Number(match[1]) * 1024 : 0;
      } catch {
        return 0;
      }
    }),
  );
  return sizes.reduce((a, b) => a + b, 0);
}

/**
 * Samples this process and its descendants every `everyMs` until stopped; reports the peak of the VmRSS total
 * and, at that moment, the split. RSS sums count pages shared between Chromium processes once per process, so
 * the total is an upper bound of the memory used; PSS (shared pages divided among their sharers) is the real
 * figure, but reading it costs ~1 ms a process, so it is read only when the RSS total reaches a new high and at
 * most every `pssEveryMs`, without blocking the event loop.
 */
export function startMemorySampler(everyMs = 100, pssEveryMs = 500) {
  let peak: MemorySample = sampleMemory();
  let samples = 1;
  let peakPss = 0;
  let lastPss = -Infinity;
  const pssReads = new Set<Promise<void>>();
  const readPss = () => {
    lastPss = performance.now();
    const read = totalPss().then((pss) => {
      peakPss = Math.max(peakPss, pss);
      pssReads.delete(read);
    });
    pssReads.add(read);
  };
  const take = () => {
    const s = sampleMemory();
    samples++;
    if (s.node + s.children > peak.node + peak.children) {
      peak = s;
      if (performance.now() - lastPss >= pssEveryMs) readPss();
    }
  };
  const timer = setInterval(take, everyMs);
  return {
    async stop(): Promise<{ peak: MemorySample; peakTotal: number; peakPss: number; samples: number }> {
      clearInterval(timer);
      take();
      await Promise.all(pssReads);
      return { peak, peakTotal: peak.node + peak.children, peakPss, samples };
    },
  };
}

/** A project of its own with one web application whose default environment is `url`: where a bench's tests run. */
export async function seedBenchApplication(db: DB, project: string, url: string) {
  const tenant = await seedProject(db, { organization: 'Bench', project });
  const app = await createApplication(db, tenant.projectId, { name: 'Page', kind: 'web' });
  const appId = (
    await db.selectFrom('applications').select('id').where('short_id', '=', app.shortId).executeTakeFirstOrThrow()
  ).id;
  await createEnvironment(db, {
    projectId: tenant.projectId,
    applicationId: appId,
    name: 'Local',
    url,
    buildId: null,
    isProduction: false,
    makeDefault: true,
  });
  return { tenant, appId };
}
