import { describe, expect, it } from 'vitest';
import type { RunPlanTest } from '../../activities/runs.js';
import { PlanRunState } from '../../workflows/plan-run-state.js';
import type { PlanRunInput } from '../../workflows/plan-run-contract.js';

// The planRun workflow's scheduling state outside a workflow: the harness test drives it with real children; this
// covers the child input, the bookkeeping and the continue-as-new carry directly.

const test = (testCaseId: string, more: Partial<RunPlanTest> = {}): RunPlanTest => ({
  testCaseId,
  name: `Test ${testCaseId}`,
  waitFor: [],
  runTestCaseId: `rtc-${testCaseId}`,
  baseUrl: 'https://app.test',
  build: null,
  device: null,
  retries: 1,
  ...more,
});
const input: PlanRunInput = {
  runId: 'run-1',
  runShortId: 'run_abc',
  projectId: 'project-1',
  concurrency: 2,
  heal: true,
};
const plan = () => [
  test('login'),
  test('cart', { waitFor: ['login'], resumeFrom: 'login' }),
  test('checkout', { waitFor: ['cart'] }),
];

describe('PlanRunState', () => {
  it('starts what is ready; a dependent resumes from the state its dependency captures', () => {
    const run = new PlanRunState();
    run.load(plan(), undefined);
    expect(run.toSkip()).toEqual([]);
    expect(run.takeReady(2)).toEqual(['login']);
    const login = run.launch(input, 'login');
    expect(login.test.name).toBe('Test login');
    expect(login.args).toMatchObject({
      runTestCaseId: 'rtc-login',
      stateKey: undefined,
      captureStateKey: expect.stringContaining('login'),
      heal: true,
      retries: 1,
    });
    expect(run.running).toBe(1);
    expect(run.takeReady(2)).toEqual([]);
    run.ended('login', 'PASSED');
    expect(run.running).toBe(0);
    expect(run.takeReady(2)).toEqual(['cart']);
    expect(run.launch(input, 'cart').args).toMatchObject({
      stateKey: login.args.captureStateKey,
      captureStateKey: undefined,
    });
  });

  it('skips the dependents of a failure, counts outcomes and finishes with the result', () => {
    const run = new PlanRunState();
    run.load(plan(), undefined);
    run.launch(input, run.takeReady(1)[0]!);
    run.ended('login', 'FAILED');
    const skip = run.toSkip();
    expect(skip).toEqual([{ testCaseId: 'cart', reason: 'resume-from dependency "Test login" ended FAILED' }]);
    run.skipped(skip);
    expect(run.toSkip()).toEqual([{ testCaseId: 'checkout', reason: 'wait-for dependency "Test cart" ended SKIPPED' }]);
    run.skipped(run.toSkip());
    expect(run.allFinished).toBe(true);
    expect(run.counts()).toEqual({ FAILED: 1, SKIPPED: 2 });
    expect(run.result()).toBe('FAILED');
  });

  it('carries its outcomes over a continue-as-new; a carry that does not fit the plan fails for good', () => {
    const run = new PlanRunState();
    run.load(plan(), undefined);
    run.launch(input, run.takeReady(1)[0]!);
    run.ended('login', 'PASSED');
    const carried = run.carry(1);
    expect(carried.continuations).toBe(1);
    const next = new PlanRunState();
    next.load(plan(), carried);
    expect(next.finished).toBe(1);
    expect(next.takeReady(5)).toEqual(['cart']);
    const broken = new PlanRunState();
    expect(() => broken.load([test('login')], carried)).toThrow(
      expect.objectContaining({ type: 'CarriedStateMismatch', nonRetryable: true }),
    );
    // The ERROR path still cleans up the state blobs of the tests it loaded.
    expect(broken.tests).toHaveLength(1);
    expect(broken.counts()).toEqual({});
  });
});
