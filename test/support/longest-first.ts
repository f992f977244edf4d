// Vitest's order for `npm test`: the files that take longest start first. On a fresh clone vitest has no timings of
// its own and started them in an order that left the API fuzzer (about 70 s) and the fault matrix (about 3 minutes,
// mostly waiting out outages) for the end, where they ran alone while the other workers had nothing left to do.
// Timings from the fresh runs in the closing notes (the last: faults 175 s, schemathesis 140, discovery 84,
// heal-large-page 83, email-codes 82, worker-crash 50, healing 49, run-timeline 48, visual-checks 42, xss 41), then
// files that were long before; where vitest has its own (a second run), they order the rest.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const longest = [
  'test/production/faults.test.ts',
  'test/api/schemathesis.test.ts',
  'test/e2e/discovery.test.ts',
  'test/e2e/heal-large-page.test.ts',
  'test/e2e/email-codes.test.ts',
  'test/e2e/worker-crash.test.ts',
  'test/e2e/healing.test.ts',
  'test/dashboard/run-timeline.test.ts',
  'test/e2e/visual-checks.test.ts',
  'test/dashboard/xss.test.ts',
  'test/e2e/auth-toolkit.test.ts',
  'test/e2e/interactions.test.ts',
  'test/e2e/change-review-crash.test.ts',
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
