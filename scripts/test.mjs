#!/usr/bin/env node
// `npm test`: the static checks (scripts/check.mjs) and vitest at the same time. The checks take about a minute of
// single-threaded CPU while vitest's files spend much of their time waiting on Chromium, Temporal and Postgres, so
// side by side the whole takes about as long as vitest alone. Arguments go to vitest (`npm test -- test/unit`).
// The exit code is non-zero if either failed; the checks' verdict is printed again after vitest's summary.
import { spawn } from 'node:child_process';
import { bin, root, runChecks } from './check.mjs';

const vitest = new Promise((resolve) => {
  const child = spawn(bin('vitest'), ['run', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
  child.on('error', (err) => {
    process.stderr.write(`vitest did not start: ${err.message}\n`);
    resolve(1);
  });
  child.on('close', (code) => resolve(code ?? 1));
});
const [failedChecks, vitestCode] = await Promise.all([runChecks(), vitest]);
process.stdout.write(
  `[check] ${failedChecks.length ? `failed: ${failedChecks.join(', ')}` : 'types, lint and format ok'}\n`,
);
process.exit(failedChecks.length || vitestCode !== 0 ? 1 : 0);
