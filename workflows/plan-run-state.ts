import { ApplicationFailure } from '@temporalio/workflow';
import type { RunPlanTest } from '../activities/runs.js';
import type { GraphNode } from '../src/domain/run-graph.js';
import { decodeOutcomes, encodeOutcomes, planRunResult, type Outcome } from '../src/domain/run-plan.js';
import { RunScheduler, type Skip } from '../src/domain/run-scheduler.js';
import { innermostMessage } from './errors.js';
import { blobKeys, type PlanRunCarry, type PlanRunInput } from './plan-run-contract.js';
import { failureTypes } from './shared.js';
import type { PlanTestRef, TestExecutionInput } from './test-execution-contract.js';

/**
 * A plan run's scheduling state: its tests, the outcome of each finished one, which were started, how many run now.
 * The workflow launches and awaits the children; every decision on what runs next is the scheduler's (src/domain).
 */
export class PlanRunState {
  tests: GraphNode[] = [];
  private scheduler = new RunScheduler([]);
  private byId = new Map<string, GraphNode>();
  /** Runs started before the graph went by reference: the whole plan, settings included, per test. */
  private settings = new Map<string, RunPlanTest>();
  /** Tests a dependent resumes from: each stores its browser state for them. */
  private resumedFrom = new Set<string>();
  running = 0;
  /** Tests this run of the chain started (a continued run starts at 0). */
  startedHere = 0;

  /** The run's tests with their settings (runs started before the graph went by reference), and carried outcomes. */
  load(tests: RunPlanTest[], carried: PlanRunCarry | undefined): void {
    this.loadGraph(tests, carried);
    this.settings = new Map(tests.map((t) => [t.testCaseId, t]));
  }

  /** The run's graph, and the outcomes a continued run carried over. */
  loadGraph(tests: GraphNode[], carried: PlanRunCarry | undefined): void {
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

  /** The test (marked started by `takeReady`) and its activity's reference: its row, retries and state keys. */
  launchRef(input: PlanRunInput, testCaseId: string): { test: GraphNode; ref: PlanTestRef } {
    const test = this.byId.get(testCaseId)!;
    this.running++;
    this.startedHere++;
    const ref: PlanTestRef = {
      runId: input.runId,
      runShortId: input.runShortId,
      projectId: input.projectId,
      runTestCaseId: test.runTestCaseId,
      testCaseId,
      // A dependent starts only after its resume-from dependency passed, which stored its state here.
      stateKey: test.resumeFrom ? blobKeys.browserState(input.runShortId, test.resumeFrom) : undefined,
      captureStateKey: this.resumedFrom.has(testCaseId)
        ? blobKeys.browserState(input.runShortId, testCaseId)
        : undefined,
      heal: input.heal,
      retries: test.retries,
    };
    return { test, ref };
  }

  /** As `launchRef`, with the settings the plan was loaded with (runs started before the graph went by reference). */
  launch(input: PlanRunInput, testCaseId: string): { test: GraphNode; args: TestExecutionInput } {
    const { test, ref } = this.launchRef(input, testCaseId);
    const { baseUrl, build, device } = this.settings.get(testCaseId)!;
    return { test, args: { ...ref, baseUrl, build, device } };
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

function restore(tests: GraphNode[], carried: PlanRunCarry): Map<string, Outcome> {
  try {
    return decodeOutcomes(tests, carried.outcomes);
  } catch (err) {
    // The run's tests are fixed when it is created; a mismatch is a bug, and retrying would not fix it.
    throw ApplicationFailure.create({
      message: innermostMessage(err),
      type: failureTypes.carriedStateMismatch,
      nonRetryable: true,
    });
  }
}
