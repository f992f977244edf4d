#!/usr/bin/env node
// The static checks of `npm test`: types and lint (tsc's and eslint's verdicts from one program,
// scripts/types-and-lint.mjs) and format (prettier), side by side. Each is one single-threaded process, so on two
// cores running them together takes about half as long as one after the other.
// Each one's output is printed whole once it ends; the exit code is non-zero if any failed.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const bin = (name) => join(root, 'node_modules', '.bin', name);
const checks = [
  ['types and lint', process.execPath, [join(root, 'scripts', 'types-and-lint.mjs')]],
  ['format', bin('prettier'), ['--check', '.', '--log-level', 'warn']],
];

/** Runs the checks; resolves to the names of those that failed (printed with their output as each ends). */
export async function runChecks() {
  const results = await Promise.all(
    checks.map(
      ([name, cmd, args]) =>
        new Promise((resolve) => {
          const started = Date.now();
          const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
          let output = '';
          child.stdout.on('data', (d) => (output += d));
          child.stderr.on('data', (d) => (output += d));
          let finished = false;
          const finish = (code) => {
            if (finished) return; // 'close' can follow 'error'
            finished = true;
            const seconds = ((Date.now() - started) / 1000).toFixed(1);
            process.stdout.write(`[check] ${name}: ${code === 0 ? 'ok' : 'FAILED'} (${seconds} s)\n${output}`);
            resolve({ name, code });
          };
          child.on('error', (err) => {
            output += `${err.message}\n`;
            finish(1);
          });
          child.on('close', finish);
        }),
    ),
  );
  return results.filter((r) => r.code !== 0).map((r) => r.name);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const failed = await runChecks();
  if (failed.length) {
    process.stdout.write(`[check] failed: ${failed.join(', ')}\n`);
    process.exit(1);
  }
}
