import { isCancellation, log, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { RunPlanTest } from '../activities/runs.js';
import { graphNodes, type GraphNode, type RunGraph } from '../src/domain/run-graph.js';
import type { Skip } from '../src/domain/run-scheduler.js';
import type { Outcome } from '../src/domain/run-plan.js';
import { bestEffortActivity, browserActivity, dbActivity } from './activity-options.js';
import { innermostMessage } from './errors.js';
import { blobKeys } from './plan-run-contract.js';
import { failureKindOf } from './shared.js';
import type { PlanTestRef, TestExecutionInput } from './test-execution-contract.js';

// planRun's activity calls that go in pages or batches, and those that are best effort.

const db = proxyActivities<Activities>(dbActivity);
const bestEffort = proxyActivities<Activities>(bestEffortActivity);

/**
 * A batch of tests' whole execution: each attempt of each is a replay (up to 8 tests, up to four attempts each); the
 * heartbeat (10 s), not this bound, is what notices a dead worker.
 */
const planTestActivity = {
  ...browserActivity,
  startToCloseTimeout: '6 hours',
  // Never eagerly to the worker that ran the run's workflow task (servers with eager activities enabled would send
  // them all there): through the task queue, any worker with a free slot takes the test (horizontal workers).
  allowEagerDispatch: false,
} as const;

/** Tests per loadRunPlan call: ~330 KB of history each, well under Temporal's 2 MB payload limit. */
const planPage = 1_000;
/** Tests per skipTests / deleteBrowserStates call, for the same reason. */
const writeBatch = 500;

/** The whole plan, in pages so that no single activity result nears the payload limit. */
export async function loadPlan(runId: string): Promise<RunPlanTest[]> {
  const tests: RunPlanTest[] = [];
  for (;;) {
    const page = await db.loadRunPlan({ runId, offset: tests.length, limit: planPage });
    tests.push(...page);
    if (page.length < planPage) return tests;
  }
}

/** Tests per loadRunGraph call: ~100 bytes each in the history (names are most of it), well under the 2 MB payload limit. */
const graphPageSize = 5_000;

/** The run's graph, read by reference (built and stored by the first call of its chain: activities/run-graph.ts). */
export async function loadGraph(runId: string, runShortId: string): Promise<GraphNode[]> {
  const pages: RunGraph[] = [];
  for (let offset = 0; ; offset += graphPageSize) {
    const page = await db.loadRunGraph({ runId, runShortId, offset, limit: graphPageSize });
    pages.push(page);
    if (offset + graphPageSize >= page.total) return graphNodes(pages);
  }
}

export async function skipTests(runId: string, skip: Skip[]): Promise<void> {
  for (let i = 0; i < skip.length; i += writeBatch) await db.skipTests({ runId, skips: skip.slice(i, i + writeBatch) });
}

/**
 * Every resume-from dependency's state blob, whatever its outcome (a test cancelled after storing its state
 * still left one). Cleaning up is best effort: a blob store that is down must not change the run's result.
 */
export async function deleteStates(runShortId: string, tests: GraphNode[], opts: { graph: boolean }): Promise<void> {
  const states = [
    ...new Set(tests.flatMap((t) => (t.resumeFrom ? [blobKeys.browserState(runShortId, t.resumeFrom)] : []))),
  ];
  // The graph goes with them: the chain has ended, nothing reads it again.
  const keys = opts.graph ? [...states, blobKeys.runGraph(runShortId)] : states;
  try {
    for (let i = 0; i < keys.length; i += writeBatch)
      await bestEffort.deleteBrowserStates({ keys: keys.slice(i, i + writeBatch) });
  } catch (err) {
    log.warn('browser state clean-up failed', { runShortId, error: innermostMessage(err) });
  }
}

// A notification that cannot be delivered is logged, never a reason to fail the run.
export async function sendNotifications(runId: string): Promise<void> {
  try {
    await bestEffort.sendRunNotifications({ runId });
  } catch (err) {
    log.warn('run notifications failed', { runId, error: innermostMessage(err) });
  }
}

/**
 * Ready tests of the run as one activity (activities/plan-test.ts), named in the Temporal UI by their names. A batch
 * whose activity failed for good (the worker died on every try, the database was down) settles here: the tests it
 * recorded keep their outcome, the others are ERROR with the reason. A cancellation goes up to the run.
 */
export async function runPlanTests(
  tests: { args: TestExecutionInput | PlanTestRef; name: string }[],
): Promise<Outcome[]> {
  const summary = tests.length === 1 ? tests[0]!.name : `${tests.length} tests: ${tests.map((t) => t.name).join(', ')}`;
  try {
    const { outcomes } = await db.runPlanTests.executeWithOptions(
      { ...planTestActivity, summary: summary.slice(0, 400) },
      [{ tests: tests.map((t) => t.args) }],
    );
    return outcomes;
  } catch (err) {
    if (isCancellation(err)) throw err;
    const error = innermostMessage(err);
    log.warn('test execution failed', { testCaseIds: tests.map((t) => t.args.testCaseId), error });
    const { outcomes } = await db.settlePlanTests({
      runTestCaseIds: tests.map((t) => t.args.runTestCaseId),
      error,
      failureKind: failureKindOf(err),
    });
    return outcomes;
  }
}
