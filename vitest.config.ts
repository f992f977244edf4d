import { defineConfig } from 'vitest/config';

// Most files share processes (isolate: false): a fresh process per file cost about two seconds of imports each
// (Temporal's SDK, Playwright, PGlite). A file keeps a process of its own when it starts or kills worker processes,
// sets the process's environment, or reads the Temporal Runtime's own log lines: test/e2e/merge-request-crash
// timed out in full runs and secrets-everywhere lost the SDK's lines when they shared.
const isolated = [
  'test/e2e/*-crash.test.ts',
  'test/e2e/secrets-everywhere.test.ts',
  'test/e2e/admin-cli.test.ts',
  'test/e2e/ci-script.test.ts',
  'test/e2e/dev-boot.test.ts',
  'test/e2e/discovery.test.ts',
  'test/e2e/master-key-run.test.ts',
  'test/e2e/plan-run-workers.test.ts',
];

export default defineConfig({
  test: {
    globalSetup: ['./test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Three on two cores: a file spends much of its time waiting on Chromium, Temporal and Postgres (the machine was
    // about half busy with two), so a third file fills the gaps.
    maxWorkers: 3,
    projects: [
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: isolated, isolate: false } },
      { extends: true, test: { name: 'isolated', include: isolated, isolate: true } },
    ],
  },
});
