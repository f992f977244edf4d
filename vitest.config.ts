import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['./test/support/global-setup.ts'],
    setupFiles: ['./test/support/temporal-runtime.ts'],
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // A worker process runs file after file with its modules loaded once: importing the app, Temporal's SDK and
    // Playwright took a second or more per file. Each file still makes its own database, task queue and stack,
    // and restores what it changes of the process (environment variables).
    isolate: false,
    // Three on two cores: a file spends much of its time waiting on Chromium, Temporal and Postgres (the machine was
    // about half busy with two), so a third file fills the gaps.
    maxWorkers: 3,
  },
});
