import { defineConfig } from 'vitest/config';
import LongestFirst from './test/support/longest-first.js';

// Most files share processes (isolate: false): a file's imports (Temporal's SDK, Playwright, PGlite and some 500 of
// our modules through Vite's runner) cost about 4 s of CPU, paid once per process instead of once per file. What a
// file starts (Chromium, a worker, Postgres databases, servers) it stops in its own afterAll. Only files that change
// the process itself, or read what only a fresh process does, run alone: tracing installs Temporal's Runtime and
// OpenTelemetry's global providers; master-key-run sets PROCTOR_MASTER_KEY in the environment; secrets-everywhere
// reads what Temporal's default Runtime prints (a file before it may have installed a quiet one); the production shape and fault matrix run many
// processes for minutes and gain nothing from sharing.
const isolated = [
  'test/e2e/tracing.test.ts',
  'test/e2e/master-key-run.test.ts',
  'test/e2e/secrets-everywhere.test.ts',
  'test/production/**/*.test.ts',
];

export default defineConfig({
  test: {
    globalSetup: ['./test/support/global-setup.ts'],
    // PROCTOR_FILE_TIMES=<file>: each file's time and CPU, hooks included (docs/testing.md); nothing without it.
    setupFiles: ['./test/support/file-times.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Three on two cores: a file spends much of its time waiting on Chromium, Temporal and Postgres (the machine was
    // about half busy with two), so a third file fills the gaps.
    maxWorkers: 3,
    sequence: { sequencer: LongestFirst },
    projects: [
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: isolated, isolate: false } },
      { extends: true, test: { name: 'isolated', include: isolated, isolate: true } },
    ],
  },
});
