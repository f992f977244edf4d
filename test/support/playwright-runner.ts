import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromiumFlags } from '../../src/browser/context/pool.js';
import { loadPrograms } from '../../src/programs.js';
import { expect } from 'vitest';
import type { Stack } from './worker-context.js';

/** Runs one exported spec with the real `@playwright/test` runner and this machine's Chromium. */
export async function runPlaywrightSpec(
  spec: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  // Inside the project, so the spec resolves @playwright/test from its node_modules.
  mkdirSync(resolve('.proctor'), { recursive: true });
  const dir = mkdtempSync(resolve('.proctor', 'export-'));
  try {
    writeFileSync(join(dir, 'exported.spec.ts'), spec);
    writeFileSync(
      join(dir, 'playwright.config.mjs'),
      `export default { testDir: ${JSON.stringify(dir)}, reporter: 'line', workers: 1, outputDir: ${JSON.stringify(join(dir, 'results'))}, use: { launchOptions: { executablePath: ${JSON.stringify(loadPrograms().chromium ?? '')}, args: ${JSON.stringify(chromiumFlags)} } } };\n`,
    );
    const cli = resolve('node_modules/@playwright/test/cli.js');
    return await new Promise((done) => {
      const child = spawn(process.execPath, [cli, 'test', '--config', join(dir, 'playwright.config.mjs')], {
        cwd: process.cwd(),
        env: { ...process.env, ...env, CI: '1' },
      });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      child.on('exit', (code) => done({ code, output }));
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
