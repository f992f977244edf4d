// Verdicts you can trust: the adversarial matrix of test/support/trust-matrix.ts, printed. Every step
// kind × every way replay finds its element (role and name, test id, id, CSS position, text with and without an
// accessible name, an LLM heal by an honest and by a lying model) × every way a bad build changes that element.
// Each cell is recorded on its good build and replayed on both (cells that differ only in their bad build share the
// one recording and good replay): the good build must pass clean, the bad one must fail (F) or report a regression
// (R); a swap that left the recorded element working may pass on it (=). The
// figure that matters is the count of silent passes: the target is 0.
//
//   node --import tsx bench/trust.ts
import { chromium } from 'playwright-core';
import { loadPrograms } from '../src/programs.js';
import { startScriptedLlm } from '../test/support/scripted-llm.js';
import { cells, healerModel, matrixTable, runMatrix, serveMatrix, summary } from '../test/support/trust-matrix.js';
import { watchdog } from './support.js';

watchdog(900, 'bench/trust');
const executablePath = loadPrograms().chromium;
if (!executablePath) throw new Error('Chromium not found: set PROCTOR_CHROMIUM_PATH or run npm run setup');
const browser = await chromium.launch({
  executablePath,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
const llm = await startScriptedLlm();
const all = cells();
const matrix = await serveMatrix(all);
try {
  llm.enqueue(...Array.from({ length: all.length * 2 }, () => healerModel));
  const started = performance.now();
  const results = await runMatrix(browser, llm, all, matrix);
  console.log(matrixTable(results));
  console.log();
  console.log(
    `F failed · R passed, reporting a regression change · = passed on the recorded element after a swap · SILENT passed with the feature broken`,
  );
  console.log(
    JSON.stringify({
      ...summary(results),
      llmCalls: llm.requests.length,
      seconds: Math.round((performance.now() - started) / 1000),
    }),
  );
  const kinds: Record<string, number> = {};
  for (const r of results) if (r.failureKind) kinds[r.failureKind] = (kinds[r.failureKind] ?? 0) + 1;
  console.log('failure kinds of the failed cells:', JSON.stringify(kinds));
  for (const r of results.filter((x) => x.outcome === 'SILENT PASS' || x.control === 'NOT CLEAN'))
    console.log(
      `  cell ${r.id} ${r.step} × ${r.locator} × ${r.mutation}: ${r.outcome} ${r.control ?? ''} — ${r.detail}`,
    );
} finally {
  await matrix.stop();
  await llm.stop();
  await browser.close();
}
