import { ApplicationFailure } from '@temporalio/workflow';
import type { RunPlanTest } from '../activities/runs.js';
import { decodeOutcomes, encodeOutcomes, planRunResult, type Outcome } from '../src/domain/run-plan.js';
import { RunScheduler, type Skip } from '../src/domain/run-scheduler.js';
import { innermostMessage } from './errors.js';
import { blobKeys, failureTypes, type PlanRunCarry, type PlanRunInput, type TestExecutionInput } from './shared.js';

/**
 * A plan run's scheduling state: its tests, the outcome of each finished one, which were started, how many run now.
 * The workflow launches and awaits the children; every decision on what runs next is the scheduler's (src/domain).
 */
export class PlanRunState {
  tests: RunPlanTest[] = [];
  private scheduler = new RunScheduler([]);
  private byId = new Map<string, RunPlanTest>();
  /** Tests a dependent resumes from: each stores its browser state for them. */
  private resumedFrom = new Set<string>();
  running = 0;

  /** The run's tests, and the outcomes a continued run carried over. */
  load(tests: RunPlanTest[], carried: PlanRunCarry | undefined): void {
    this.tests = tests;
    this.scheduler = new RunScheduler(tests, carried ? restore(tests, carried) : undefined);
    this.byId = new Map(tests.map((t) => [t.testCaseId, t]));
    this.resumedFrom = new Set(tests.map((t) => t.resumeFrom).filter((id): id is string => Boolean(id)));
  }

  get finished(): number {
    return this.scheduler.finishedCount;
  }

  get allFinished(): boolean {
    return this.finished >= this.tests.length;
  }

  /** The tests that can never run now (a dependency did not pass), with the reason. */
  toSkip(): Skip[] {
    return this.scheduler.toSkip();
  }

  skipped(skips: Skip[]): void {
    for (const s of skips) this.scheduler.ended(s.testCaseId, 'SKIPPED');
  }

  get readyCount(): number {
    return this.scheduler.readyCount;
  }

  /** Up to `limit` tests whose dependencies all passed, first in plan order, marked started. */
  takeReady(limit: number): string[] {
    return this.scheduler.take(limit);
  }

  /** Returns the test (marked started by `takeReady`) with its child's input. */
  launch(input: PlanRunInput, testCaseId: string): { test: RunPlanTest; args: TestExecutionInput } {
    const test = this.byId.get(testCaseId)!;
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
    this.scheduler.ended(testCaseId, outcome);
    this.running--;
  }

  /** The run's result; quarantined tests run and report, but do not fail the run. */
  result(): ReturnType<typeof planRunResult> {
    return planRunResult(this.tests, this.scheduler.outcomes);
  }

  counts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const o of this.scheduler.outcomes.values()) counts[o] = (counts[o] ?? 0) + 1;
    return counts;
  }

  carry(continuations: number): PlanRunCarry {
    return { outcomes: encodeOutcomes(this.tests, this.scheduler.outcomes), continuations };
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
