// Vitest's order for `npm test`: the files that take longest start first. On a fresh clone vitest has no timings of
// its own and started them in an order that left the API fuzzer (about 70 s) and the fault matrix (about 3 minutes,
// mostly waiting out outages) for the end, where they ran alone while the other workers had nothing left to do.
// Timings from the last full run in the closing notes (faults 176 s, schemathesis 107, discovery 92, dashboard pages 88,
// email-codes 79, heal-large-page 78, email-export 59, worker-crash 53, healing 52, burn-in-admin 47), then files that
// were long before; where vitest has its own (a second run), they order the rest.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const longest = [
  'test/production/faults.test.ts',
  'test/api/schemathesis.test.ts',
  'test/e2e/discovery.test.ts',
  'test/dashboard/pages.test.ts',
  'test/e2e/email-codes.test.ts',
  'test/e2e/heal-large-page.test.ts',
  'test/e2e/email-export.test.ts',
  'test/e2e/worker-crash.test.ts',
  'test/e2e/healing.test.ts',
  'test/e2e/burn-in-admin.test.ts',
  'test/e2e/burn-in-large-page.test.ts',
  'test/e2e/auth-toolkit.test.ts',
  'test/dashboard/xss.test.ts',
  'test/e2e/plan-run-workers.test.ts',
  'test/e2e/interactions.test.ts',
  'test/e2e/flaky-tests.test.ts',
  'test/dashboard/run-timeline.test.ts',
  'test/e2e/visual-checks.test.ts',
];

const rank = (spec: TestSpecification): number => {
  const i = longest.findIndex((path) => spec.moduleId.endsWith(path));
  return i < 0 ? longest.length : i;
};

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return [...(await super.sort(files))].sort((a, b) => rank(a) - rank(b));
  }
}
