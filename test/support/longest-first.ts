// Vitest's order for `npm test`: the files that take longest start first. On a fresh clone vitest has no timings of
// its own and started them in an order that left the API fuzzer (about 70 s) and the fault matrix (about 3 minutes,
// mostly waiting out outages) for the end, where they ran alone while the other workers had nothing left to do.
// Each file's whole time, hooks included (PROCTOR_FILE_TIMES, test/support/file-times.ts), from a fresh run on two
// cores (2026-11-29): vitest's JSON reporter leaves a file's hooks out, and the trust matrix, whose work is all in
// `beforeAll`, read 0 s there and started among the last files. Where vitest has its own timings (a second run), they
// order the rest.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const longest = [
  'test/production/faults.test.ts', // 214 s
  'test/api/schemathesis.test.ts', // 204
  'test/e2e/trust-matrix.test.ts', // 264; 206 in the next run, its good builds shared
  'test/dashboard/pages.test.ts', // 167
  'test/e2e/visual-checks.test.ts', // 136
  'test/e2e/email-codes.test.ts', // 123
  'test/dashboard/run-timeline.test.ts', // 121
  'test/e2e/heal-large-page.test.ts', // 110
  'test/e2e/interactions.test.ts', // 100
  'test/e2e/discovery.test.ts', // 100
  'test/dashboard/xss.test.ts', // 91
  'test/e2e/healing.test.ts', // 79
  'test/e2e/burn-in-large-page.test.ts', // 78
  'test/e2e/burn-in-admin.test.ts', // 71
  'test/e2e/worker-crash.test.ts', // 69
  'test/e2e/failed-calls.test.ts', // 67
  'test/e2e/plan-run-workers.test.ts', // 64
  'test/e2e/email-export.test.ts', // 61
  'test/e2e/flaky-tests.test.ts', // 58
  'test/production/production-shape.test.ts', // 55
  'test/e2e/auth-toolkit.test.ts', // 54
  'test/workflows/plan-test-equivalence.test.ts', // 52
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
