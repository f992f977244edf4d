import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromiumFlags } from '../../src/browser/context/pool.js';
import { loadPrograms } from '../../src/programs.js';
import { expect } from 'vitest';
import type { Stack } from './worker-context.js';

/** One spec file's outcome in a batch: how many tests it held, whether all passed, and its errors and output. */
export interface SpecResult {
  tests: number;
  passed: boolean;
  /** The spec's error messages, then what its tests printed. */
  output: string;
}

export interface SpecBatch {
  code: number | null;
  /** The runner's own output (line reporter), every spec's. */
  output: string;
  /** By the names the specs were given; a spec the runner did not report has no entry. */
  results: Record<string, SpecResult>;
}

interface JsonSuite {
  file?: string;
  specs?: {
    tests: {
      results: {
        status: string;
        errors?: { message?: string }[];
        stdout?: { text?: string }[];
        stderr?: { text?: string }[];
      }[];
    }[];
  }[];
  suites?: JsonSuite[];
}

/**
 * Runs exported specs with the real `@playwright/test` runner and this machine's Chromium, all in one runner
 * process (`env`: their configs' values, the same for each). Each spec is its own file, so each keeps its own
 * verdict (`results`); starting the runner, its worker and a browser cost about 1.5 s of CPU, which a file with
 * several specs paid once per spec before.
 */
export async function runPlaywrightSpecs(
  specs: Record<string, string>,
  env: Record<string, string> = {},
): Promise<SpecBatch> {
  // Inside the project, so the spec resolves @playwright/test from its node_modules.
  mkdirSync(resolve('.proctor'), { recursive: true });
  const dir = mkdtempSync(resolve('.proctor', 'export-'));
  const files = Object.keys(specs).map((name, i) => ({ name, file: `spec-${i}.spec.ts` }));
  try {
    for (const { name, file } of files) writeFileSync(join(dir, file), specs[name]!);
    const report = join(dir, 'report.json');
    writeFileSync(
      join(dir, 'playwright.config.mjs'),
      `export default { testDir: ${JSON.stringify(dir)}, reporter: [['line'], ['json', { outputFile: ${JSON.stringify(report)} }]], workers: 1, outputDir: ${JSON.stringify(join(dir, 'results'))}, use: { launchOptions: { executablePath: ${JSON.stringify(loadPrograms().chromium ?? '')}, args: ${JSON.stringify(chromiumFlags)} } } };\n`,
    );
    const cli = resolve('node_modules/@playwright/test/cli.js');
    const { code, output } = await new Promise<{ code: number | null; output: string }>((done) => {
      const child = spawn(process.execPath, [cli, 'test', '--config', join(dir, 'playwright.config.mjs')], {
        cwd: process.cwd(),
        env: { ...process.env, ...env, CI: '1' },
      });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      child.on('exit', (code) => done({ code, output }));
    });
    const results: Record<string, SpecResult> = {};
    let suites: JsonSuite[] = [];
    try {
      suites = (JSON.parse(readFileSync(report, 'utf8')) as { suites?: JsonSuite[] }).suites ?? [];
    } catch {
      // No report (the runner did not start): no spec has a result, and `output` says why.
    }
    for (const { name, file } of files) {
      const suite = suites.find((s) => s.file === file || s.file?.endsWith(`/${file}`));
      if (suite) results[name] = resultOf(suite);
    }
    return { code, output, results };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function resultOf(suite: JsonSuite): SpecResult {
  const runs = testsOf(suite).map((test) => test.results.at(-1));
  const lines = runs.flatMap((run) => [
    ...(run?.errors ?? []).map((e) => e.message ?? ''),
    ...[...(run?.stdout ?? []), ...(run?.stderr ?? [])].map((o) => o.text ?? ''),
  ]);
  return {
    tests: runs.length,
    passed: runs.length > 0 && runs.every((run) => run?.status === 'passed'),
    output: lines.join('\n'),
  };
}

const testsOf = (suite: JsonSuite): NonNullable<JsonSuite['specs']>[number]['tests'] => [
  ...(suite.specs ?? []).flatMap((spec) => spec.tests),
  ...(suite.suites ?? []).flatMap(testsOf),
];

/** Runs one exported spec with the real `@playwright/test` runner and this machine's Chromium. */
export async function runPlaywrightSpec(
  spec: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  const { code, output } = await runPlaywrightSpecs({ exported: spec }, env);
  return { code, output };
}

/** The Playwright spec the API exports for the test case, as its project's token asks for it (the answer is a 200). */
export async function exportedSpec(stack: Pick<Stack, 'app' | 'tenant'>, testCaseId: string): Promise<string> {
  const res = await stack.app.request(`/v1/test-cases/${testCaseId}/playwright`, {
    headers: { authorization: `Bearer ${stack.tenant.token}` },
  });
  expect(res.status).toBe(200);
  return res.text();
}

/** Runs the spec (`env`: its configs' values) and expects its one test to pass. */
export async function expectSpecPasses(spec: string, env: Record<string, string> = {}): Promise<void> {
  const run = await runPlaywrightSpec(spec, env);
  expect(run.output).toMatch(/1 passed/);
  expect(run.code).toBe(0);
}

/** Expects the batch's spec `name` to hold one test, which passed (the message shows the spec's errors otherwise). */
export function expectBatchSpecPassed(batch: SpecBatch, name: string): void {
  const result = batch.results[name];
  expect(result, `${name}: the runner reported no result for its spec; its output:\n${batch.output}`).toBeDefined();
  expect(result!.tests, `${name}: the spec's tests`).toBe(1);
  expect(result!.passed, `${name}: the spec failed:\n${result!.output}`).toBe(true);
}
