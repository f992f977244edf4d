import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['./test/support/global-setup.ts'],
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Each file in a fresh process (vitest's default). Sharing processes (isolate: false) saved about a second of
    // imports per file, but test/e2e/merge-request-crash.test.ts then timed out in full runs (never alone): some
    // state a file leaves in the process is not found yet, so files stay isolated until it is.
    isolate: true,
    // Three on two cores: a file spends much of its time waiting on Chromium, Temporal and Postgres (the machine was
    // about half busy with two), so a third file fills the gaps.
    maxWorkers: 3,
  },
});
