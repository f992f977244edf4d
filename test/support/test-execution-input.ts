// The input of one testExecution child (test case tc-1 of run run_abc on https://shop.test), for the workflow tests
// that start it directly and those that check the plan-run activity treats it the same way.
import type { TestExecutionInput } from '../../workflows/test-execution-contract.js';

export const testExecutionInput = (over: Partial<TestExecutionInput> = {}): TestExecutionInput => ({
  runId: 'run-uuid',
  runShortId: 'run_abc',
  projectId: 'project-1',
  runTestCaseId: 'rtc-1',
  testCaseId: 'tc-1',
  baseUrl: 'https://shop.test',
  device: null,
  heal: false,
  ...over,
});
