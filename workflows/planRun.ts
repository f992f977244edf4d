import {
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowCancellationType,
  condition,
  continueAsNew,
  executeChild,
  isCancellation,
  log,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import type { RunPlanTest } from '../activities/runs.js';
import { decide, decodeOutcomes, encodeOutcomes, planRunResult, type Outcome } from '../src/domain/run-plan.js';
import { dbActivity } from './activity-options.js';
import { innermostMessage } from './errors.js';
import { testExecution } from './testExecution.js';
import { blobKeys, workflowIds, type PlanRunCarry, type PlanRunInput, type PlanRunResult } from './shared.js';

type Activities = ReturnType<typeof createActivities>;
const db = proxyActivities<Activities>(dbActivity);
// Notifications and clean-up: retried a few times, then given up on (logged), never failing the run.
const bestEffort = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 5, initialInterval: '2 seconds' } });

/** Tests per loadRunPlan call: ~330 KB of history each, well under Temporal's 2 MB payload limit. */
const planPage = 1_000;
/** Tests per skipTests / deleteBrowserStates call, for the same reason. */
const writeBatch = 500;

/**
 * A run of a test plan: every test a child `testExecution`, started as soon as its dependencies passed,
 * at most `concurrency` at once; a test whose dependency did not pass is SKIPPED with the reason.
 *
 * Long runs: each test costs the history ~6 events (the child's initiated/started/completed and about one workflow
 * task), so a run of ~8,000 tests would reach Temporal's 51,200-event limit. Past `maxHistoryEvents` the run
 * continues as new, carrying the DAG state (one outcome letter per test). Why this and not a child workflow per
 * batch of tests: dependencies cross any batching, so batches would have to wait on each other's outcomes; one
 * scheduler with the whole graph keeps the semantics in one place. Children run under the default
 * ParentClosePolicy.TERMINATE, and a new run could not await the previous run's children anyway, so before
 * continuing the run stops launching and drains: the slots idle for at most one test's duration per continuation
 * (~7 continuations at 10,000 tests). Why not `continueAsNewSuggested`: the server suggests it at 4K events or
 * 4 MB by default, so the drain would come every ~650 tests, and a 10,000-test plan (~3 MB of loadRunPlan
 * results) would be near the byte mark right after loading. At ~1.6 KB per test the event budget binds long
 * before the 50 MB size limit.
 *
 * Resume-from browser state travels by reference: a dependency stores it in the blob store under
 * `blobKeys.browserState(run, test)`, its dependents read it from there, so megabytes of cookies and storage never
 * enter a history. Those blobs are deleted when the run ends: they hold live sessions of the application under
 * test, nothing reads them afterwards, and a rerun replays the dependency again.
 */
export async function planRun(input: PlanRunInput): Promise<PlanRunResult> {
  const continuations = input.carried?.continuations ?? 0;
  const eventBudget = input.maxHistoryEvents ?? 10_000;
  let outcomes = new Map<string, Outcome>();
  const started = new Set<string>();
  let tests: RunPlanTest[] = [];
  let running = 0;
  let carry: PlanRunCarry | undefined;

  try {
    if (!input.carried) await db.markRunStarted({ runId: input.runId });
    tests = await loadPlan(input.runId);
    if (input.carried) outcomes = restore(tests, input.carried);
    const byId = new Map(tests.map((t) => [t.testCaseId, t]));
    const resumedFrom = new Set(tests.map((t) => t.resumeFrom).filter((id): id is string => Boolean(id)));

    const launch = (testCaseId: string) => {
      const test = byId.get(testCaseId)!;
      started.add(testCaseId);
      running++;
      void executeChild(testExecution, {
        workflowId: workflowIds.testExecution(input.runShortId, testCaseId),
        staticSummary: test.name,
        cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
        args: [
          {
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
            captureStateKey: resumedFrom.has(testCaseId) ? blobKeys.browserState(input.runShortId, testCaseId) : undefined,
            heal: input.heal,
            retries: test.retries,
          },
        ],
      }).then(
        (result) => {
          outcomes.set(testCaseId, result.outcome);
          running--;
        },
        (err: unknown) => {
          outcomes.set(testCaseId, isCancellation(err) ? 'CANCELLED' : 'ERROR');
          if (!isCancellation(err)) log.warn('test execution failed', { testCaseId, error: innermostMessage(err) });
          running--;
        },
      );
    };

    let draining = false;
    while (outcomes.size < tests.length) {
      const { ready, skip } = decide(tests, outcomes, started);
      if (skip.length > 0) {
        for (let i = 0; i < skip.length; i += writeBatch) await db.skipTests({ runId: input.runId, skips: skip.slice(i, i + writeBatch) });
        for (const s of skip) outcomes.set(s.testCaseId, 'SKIPPED');
        continue;
      }
      draining ||= workflowInfo().historyLength >= eventBudget;
      if (draining && running === 0) {
        carry = { outcomes: encodeOutcomes(tests, outcomes), continuations: continuations + 1 };
        break;
      }
      if (!draining) for (const id of ready.slice(0, Math.max(0, input.concurrency - running))) launch(id);
      const finishedBefore = outcomes.size;
      await condition(() => outcomes.size > finishedBefore);
    }

    if (!carry) {
      // Quarantined tests run and report, but do not fail the run.
      const result = planRunResult(tests, outcomes);
      await deleteStates(input.runShortId, tests);
      await db.finishRun({ runId: input.runId, status: 'COMPLETED', result });
      await sendNotifications(input.runId);
      return { status: 'COMPLETED', result, counts: count(outcomes), continuations };
    }
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(async () => {
        await condition(() => running === 0);
        await deleteStates(input.runShortId, tests);
        await db.finishRun({ runId: input.runId, status: 'CANCELLED', result: null });
      });
      return { status: 'CANCELLED', result: null, counts: count(outcomes), continuations };
    }
    const error = innermostMessage(err);
    await deleteStates(input.runShortId, tests);
    await db.finishRun({ runId: input.runId, status: 'ERROR', result: null, error });
    await sendNotifications(input.runId);
    return { status: 'ERROR', result: null, counts: count(outcomes), continuations };
  }
  log.info('run continues as new', { runId: input.runId, finished: outcomes.size, of: tests.length, continuations: carry.continuations });
  return continueAsNew<typeof planRun>({ ...input, carried: carry });
}

/** The whole plan, in pages so that no single activity result nears the payload limit. */
async function loadPlan(runId: string): Promise<RunPlanTest[]> {
  const tests: RunPlanTest[] = [];
  for (;;) {
    const page = await db.loadRunPlan({ runId, offset: tests.length, limit: planPage });
    tests.push(...page);
    if (page.length < planPage) return tests;
  }
}

function restore(tests: RunPlanTest[], carried: PlanRunCarry): Map<string, Outcome> {
  try {
    return decodeOutcomes(tests, carried.outcomes);
  } catch (err) {
    // The run's tests are fixed when it is created; a mismatch is a bug, and retrying would not fix it.
    throw ApplicationFailure.create({ message: innermostMessage(err), type: 'CarriedStateMismatch', nonRetryable: true });
  }
}

/**
 * Every resume-from dependency's state blob, whatever its outcome (a test cancelled after storing its state
 * still left one). Cleaning up is best effort: a blob store that is down must not change the run's result.
 */
async function deleteStates(runShortId: string, tests: RunPlanTest[]): Promise<void> {
  const keys = [...new Set(tests.flatMap((t) => (t.resumeFrom ? [blobKeys.browserState(runShortId, t.resumeFrom)] : [])))];
  try {
    for (let i = 0; i < keys.length; i += writeBatch) await bestEffort.deleteBrowserStates({ keys: keys.slice(i, i + writeBatch) });
  } catch (err) {
    log.warn('browser state clean-up failed', { runShortId, error: innermostMessage(err) });
  }
}

// A notification that cannot be delivered is logged, never a reason to fail the run.
async function sendNotifications(runId: string): Promise<void> {
  try {
    await bestEffort.sendRunNotifications({ runId });
  } catch (err) {
    log.warn('run notifications failed', { runId, error: innermostMessage(err) });
  }
}

function count(outcomes: Map<string, Outcome>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes.values()) counts[o] = (counts[o] ?? 0) + 1;
  return counts;
}
