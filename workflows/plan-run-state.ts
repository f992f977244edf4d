import { ApplicationFailure } from '@temporalio/workflow';
import type { RunPlanTest } from '../activities/runs.js';
import { decide, decodeOutcomes, encodeOutcomes, planRunResult, type Decision, type Outcome } from '../src/domain/run-plan.js';
import { innermostMessage } from './errors.js';
import { blobKeys, failureTypes, type PlanRunCarry, type PlanRunInput, type TestExecutionInput } from './shared.js';

/**
 * A plan run's scheduling state: its tests, the outcome of each finished one, which were started, how many run now.
 * The workflow launches and awaits the children; every decision on what runs next is `decide`'s (src/domain).
 */
export class PlanRunState {
  tests: RunPlanTest[] = [];
  private outcomes = new Map<string, Outcome>();
  private readonly started = new Set<string>();
  private byId = new Map<string, RunPlanTest>();
  /** Tests a dependent resumes from: each stores its browser state for them. */
  private resumedFrom = new Set<string>();
  running = 0;

  /** The run's tests, and the outcomes a continued run carried over. */
  load(tests: RunPlanTest[], carried: PlanRunCarry | undefined): void {
    this.tests = tests;
    if (carried) this.outcomes = restore(tests, carried);
    this.byId = new Map(tests.map((t) => [t.testCaseId, t]));
    this.resumedFrom = new Set(tests.map((t) => t.resumeFrom).filter((id): id is string => Boolean(id)));
  }

  get finished(): number {
    return this.outcomes.size;
  }

  get allFinished(): boolean {
    return this.outcomes.size >= this.tests.length;
  }

  next(): Decision {
    return decide(this.tests, this.outcomes, this.started);
  }

  skipped(skips: Decision['skip']): void {
    for (const s of skips) this.outcomes.set(s.testCaseId, 'SKIPPED');
  }

  /** Marks the test started; returns it with its child's input. */
  launch(input: PlanRunInput, testCaseId: string): { test: RunPlanTest; args: TestExecutionInput } {
    const test = this.byId.get(testCaseId)!;
    this.started.add(testCaseId);
    this.running++;
    const args: TestExecutionInput = {
      runId: input.runId,
      runShortId: input.runShortId,
      projectId: input.projectId,
      runTestCaseId: test.runTestCaseId,
      testCaseId,
      baseUrl: test.baseUrl,
      build: test.build,
      device: test.device,
      // A dependent starts only after its resume-from dependency passed, which stored its state here.
      stateKey: test.resumeFrom ? blobKeys.browserState(input.runShortId, test.resumeFrom) : undefined,
      captureStateKey: this.resumedFrom.has(testCaseId) ? blobKeys.browserState(input.runShortId, testCaseId) : undefined,
      heal: input.heal,
      retries: test.retries,
    };
    return { test, args };
  }

  ended(testCaseId: string, outcome: Outcome): void {
    this.outcomes.set(testCaseId, outcome);
    this.running--;
  }

  /** The run's result; quarantined tests run and report, but do not fail the run. */
  result(): ReturnType<typeof planRunResult> {
    return planRunResult(this.tests, this.outcomes);
  }

  counts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const o of this.outcomes.values()) counts[o] = (counts[o] ?? 0) + 1;
    return counts;
  }

  carry(continuations: number): PlanRunCarry {
    return { outcomes: encodeOutcomes(this.tests, this.outcomes), continuations };
  }
}

function restore(tests: RunPlanTest[], carried: PlanRunCarry): Map<string, Outcome> {
  try {
    return decodeOutcomes(tests, carried.outcomes);
  } catch (err) {
    // The run's tests are fixed when it is created; a mismatch is a bug, and retrying would not fix it.
    throw ApplicationFailure.create({ message: innermostMessage(err), type: failureTypes.carriedStateMismatch, nonRetryable: true });
  }
}
