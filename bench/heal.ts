// What a broken locator costs a replay: the 10-step shop test (bench/support.ts) with 0, 1 and 5 of its action
// locators broken, each broken step either still finding its element through a recorded fallback (no LLM) or
// only through self-healing (one call to the scripted OpenAI-compatible model over HTTP, whose pick is checked).
// Wall time of the whole replay, LLM calls, and the slowest broken step (from starting it to starting the next).
//
//   node --import tsx bench/heal.ts
//   BENCH_ITERATIONS=10   measured runs per row (default 5), after one warm-up per row.
import { createLlm } from '../src/llm/client.js';
import { createLlmHealer } from '../src/llm/heal.js';
import { recordedIntent } from '../src/llm/heal-rules.js';
import { replaySteps, type Healer } from '../src/browser/replay/replay.js';
import { RunValues } from '../src/domain/run-values.js';
import type { Step } from '../src/domain/steps.js';
import { refOf, tool } from '../test/support/agent-script.js';
import type { ScriptedLlm } from '../test/support/scripted-llm.js';
import type { BrowserPool } from '../src/browser/context/pool.js';
import { envInt, fixed, median, recordedSteps, shopConfigs, stepTimeoutMs, table, watchdog } from './support.js';
import { withLlmRig } from './rig.js';

const iterations = envInt('BENCH_ITERATIONS', 5);
// Action steps (never the assert_text, which is never healed): email, sign in, add mug, open cart, checkout.
const breakable = [0, 2, 3, 6, 8];

type Mode = 'fallback' | 'llm' | 'none';
interface Row {
  broken: number;
  mode: Mode;
  heal: boolean;
}

const rows: Row[] = [
  { broken: 0, mode: 'none', heal: true },
  { broken: 1, mode: 'fallback', heal: true },
  { broken: 1, mode: 'llm', heal: true },
  { broken: 5, mode: 'fallback', heal: true },
  { broken: 5, mode: 'llm', heal: true },
  // Fallbacks alone, no healer: the probe is the whole step timeout, but a matching fallback ends it at once.
  { broken: 5, mode: 'fallback', heal: false },
];
watchdog(120 + rows.length * (iterations + 1) * 60, 'bench/heal');

/** The test with `count` primaries replaced by a locator that matches nothing (a renamed element). */
function breakSteps(count: number, mode: Mode): Step[] {
  return recordedSteps.map((step, index) => {
    if (!breakable.slice(0, count).includes(index)) return step;
    const intent = recordedIntent(step);
    const gone = `getByRole('${intent.role}', { name: '${intent.name} (gone)' })`;
    return {
      ...step,
      locator: gone,
      fallbacks: mode === 'fallback' ? [step.locator!] : [],
      target: { role: intent.role!, name: intent.name },
    };
  });
}

/** The scripted model re-finds each broken element by its recorded role and name, as a model reading the snapshot would. */
function queueHeals(llm: ScriptedLlm, steps: Step[], count: number): void {
  for (const index of breakable.slice(0, count)) {
    const intent = recordedIntent(steps[index]!);
    llm.enqueue((r) =>
      tool('select_element', {
        ref: refOf(r, `${intent.role} "${intent.name}"`),
        reason: `same ${intent.role}, same name`,
      }),
    );
  }
}

async function measure(pool: BrowserPool, shopUrl: string, llm: ScriptedLlm, healer: Healer, row: Row) {
  const steps = breakSteps(row.broken, row.mode);
  if (row.mode === 'llm') queueHeals(llm, recordedSteps, row.broken);
  const calls = llm.requests.length;
  const startUrl = `${shopUrl}/shop/login`;
  const started = performance.now();
  const stepStarts: number[] = [];
  const result = await pool.withContext({}, ({ page }) =>
    replaySteps(page, steps, {
      startUrl,
      baseUrl: startUrl,
      values: new RunValues({ configs: shopConfigs }),
      timeoutMs: stepTimeoutMs,
      heal: row.heal ? healer : undefined,
      onStep: (i) => void (stepStarts[i] = performance.now()),
    }),
  );
  const wallMs = performance.now() - started;
  if (result.status !== 'PASSED') throw new Error(`${row.broken} broken (${row.mode}) did not pass: ${result.error}`);
  const ends = [...stepStarts.slice(1), started + wallMs];
  const brokenMs = breakable.slice(0, row.broken).map((i) => ends[i]! - stepStarts[i]!);
  return {
    wallMs,
    llmCalls: llm.requests.length - calls,
    slowestBrokenMs: brokenMs.length ? Math.max(...brokenMs) : 0,
    healed: result.healed.length,
  };
}

await withLlmRig(async ({ fixture, llm, pool }) => {
  const client = createLlm({ apiKey: llm.apiKey, baseURL: llm.baseURL, model: 'scripted-model' }, { maxRetries: 0 })!;
  const healer = createLlmHealer(client, {});

  const out: (string | number)[][] = [];
  for (const row of rows) {
    await measure(pool, fixture.url, llm, healer, row);
    const runs = [];
    for (let i = 0; i < iterations; i++) runs.push(await measure(pool, fixture.url, llm, healer, row));
    out.push([
      row.broken,
      row.mode === 'none' ? '-' : row.mode === 'fallback' ? 'recorded fallback' : 'LLM heal',
      row.heal ? 'yes' : 'no',
      fixed(median(runs.map((r) => r.wallMs)), 0),
      fixed(median(runs.map((r) => r.llmCalls)), 0),
      row.broken ? fixed(median(runs.map((r) => r.slowestBrokenMs)), 0) : '-',
      fixed(median(runs.map((r) => r.healed)), 0),
    ]);
  }
  process.stdout.write(
    `${recordedSteps.length}-step shop test, one Chromium, fresh context per run, step timeout ${stepTimeoutMs} ms, probe 2000 ms; median of ${iterations} runs per row after a warm-up\n\n`,
  );
  process.stdout.write(
    table(['broken', 'found through', 'healer', 'wall ms', 'LLM calls', 'slowest broken step ms', 'steps healed'], out),
  );
});
process.exit(0);
