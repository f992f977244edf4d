import { defineConfig } from 'vitest/config';
import LongestFirst from './test/support/longest-first.js';

// Files that start no worker process of their own, kill nothing and install no Temporal Runtime share processes
// (isolate: false): a file's imports (Temporal's SDK, Playwright, PGlite) were about 2 s of each file's time. The
// end-to-end files stay one process each: they SIGKILL workers, read the Runtime's logs and hold browsers, and
// test/e2e/merge-request-crash.test.ts timed out in full runs when they shared.
const shared = ['test/{unit,api,tunnels,workflows,dashboard,deploy}/**/*.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['./test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Three on two cores: a file spends much of its time waiting on Chromium, Temporal and Postgres (the machine was
    // about half busy with two), so a third file fills the gaps.
    maxWorkers: 3,
    sequence: { sequencer: LongestFirst },
    projects: [
      { extends: true, test: { name: 'shared', include: shared, isolate: false } },
      { extends: true, test: { name: 'isolated', include: ['test/**/*.test.ts'], exclude: shared, isolate: true } },
    ],
  },
});
