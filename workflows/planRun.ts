import {
  CancellationScope,
  ChildWorkflowCancellationType,
  condition,
  continueAsNew,
  executeChild,
  isCancellation,
  log,
  patched,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { dbActivity } from './activity-options.js';
import { innermostMessage } from './errors.js';
import { batchSize, inBatches } from '../src/domain/run-batches.js';
import { deleteStates, loadGraph, loadPlan, runPlanTests, sendNotifications, skipTests } from './plan-run-calls.js';
import { PlanRunState } from './plan-run-state.js';
import { testExecution } from './testExecution.js';
import { failureKindOf, workflowIds } from './shared.js';
import { upsertProctorAttributes } from './search-attributes.js';
import type { PlanRunCarry, PlanRunInput, PlanRunResult } from './plan-run-contract.js';

const db = proxyActivities<Activities>(dbActivity);

/**
 * A run of a test plan: every test is started as soon as its dependencies passed, at most `concurrency` at once, in a
 * `runPlanTests` activity (runs started before that: a child `testExecution` each); while many more tests are ready
 * than there are slots, an activity takes several and runs them back to back (src/domain/run-batches.ts). A test
 * whose dependency did not pass is SKIPPED with the reason.
 *
 * Long runs: an activity costs the history ~4 events (scheduled/started/completed and a share of the workflow tasks),
 * for 1-8 tests (bench/plan-run: 0.6 events per test at 10,000); the children of older runs cost ~6 per test, so a
 * run of ~8,000 tests would reach Temporal's 51,200-event limit. Past `maxHistoryEvents` the run
 * continues as new, carrying the DAG state (one outcome letter per test). Why this and not a child workflow per
 * batch of tests: dependencies cross any batching, so batches would have to wait on each other's outcomes; one
 * scheduler with the whole graph keeps the semantics in one place. A closed run's activities
 * (and, before, its children under the default ParentClosePolicy.TERMINATE) cannot report to the new run, so before
 * continuing the run stops launching and drains: the slots idle for at most one test's duration per continuation
 * (a narrow DAG, whose batches stay at one test: ~4 events a test, so past ~2,500 tests). Why not
 * `continueAsNewSuggested`: the server suggests it at 4K events or 4 MB by default, so the drain would come every
 * ~650 tests. At ~1.6 KB per test the event budget binds long before the 50 MB size limit.
 *
 * The plan goes by reference (src/domain/run-graph.ts): the chain's first run builds the graph from the database and
 * stores it in the blob store under the run's id; every run of the chain reads the graph from there (~100 bytes a
 * test: ids, names, dependencies by position, retries), and each test's activity reads its own settings (URL,
 * device, build) from its row. Before, every run of a chain loaded the whole plan (~330 bytes a test, 3.3 MB at
 * 10,000) into its history.
 *
 * Resume-from browser state travels by reference: a dependency stores it in the blob store under
 * `blobKeys.browserState(run, test)`, its dependents read it from there, so megabytes of cookies and storage never
 * enter a history. Those blobs are deleted when the run ends: they hold live sessions of the application under
 * test, nothing reads them afterwards, and a rerun replays the dependency again.
 */
export async function planRun(input: PlanRunInput): Promise<PlanRunResult> {
  const continuations = input.carried?.continuations ?? 0;
  const eventBudget = input.maxHistoryEvents ?? 10_000;
  const run = new PlanRunState();
  let carry: PlanRunCarry | undefined;

  // Asked once, before the first command: a history from before tests were activities replays with children to its
  // end, one from before the graph went by reference loads the whole plan.
  const testsAsActivities = patched('plan-tests-as-activities');
  const graphByReference = testsAsActivities && patched('plan-graph-by-reference');

  // Slots in use: activities, each running its batch of ready tests one after the other.
  let busy = 0;
  const launchBatch = (testCaseIds: string[]) => {
    const launched = testCaseIds.map((id) => (graphByReference ? run.launchRef(input, id) : run.launch(input, id)));
    const tests = launched.map((l) => ({ args: 'ref' in l ? l.ref : l.args, name: l.test.name ?? l.test.testCaseId }));
    busy++;
    void runPlanTests(tests)
      .then(
        (outcomes) => testCaseIds.forEach((id, i) => run.ended(id, outcomes[i] ?? 'ERROR')),
        () => testCaseIds.forEach((id) => run.ended(id, 'CANCELLED')),
      )
      .finally(() => busy--);
  };

  const launch = (testCaseId: string) => {
    const { test, args } = run.launch(input, testCaseId);
    void executeChild(testExecution, {
      workflowId: workflowIds.testExecution(input.runShortId, testCaseId),
      staticSummary: test.name,
      cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
      args: [args],
    }).then(
      (result) => run.ended(testCaseId, result.outcome),
      (err: unknown) => {
        if (!isCancellation(err)) log.warn('test execution failed', { testCaseId, error: innermostMessage(err) });
        run.ended(testCaseId, isCancellation(err) ? 'CANCELLED' : 'ERROR');
      },
    );
  };

  try {
    if (!input.carried) await db.markRunStarted({ runId: input.runId });
    if (graphByReference) run.loadGraph(await loadGraph(input.runId, input.runShortId), input.carried);
    else run.load(await loadPlan(input.runId), input.carried);

    let draining = false;
    while (!run.allFinished) {
      const skip = run.toSkip();
      if (skip.length > 0) {
        await skipTests(input.runId, skip);
        run.skipped(skip);
        continue;
      }
      // Not before this run started a test: a budget smaller than what loading costs would otherwise continue as new
      // forever without running anything. A run that could not start one (nothing ready) has nothing to drain either.
      draining ||= workflowInfo().historyLength >= eventBudget && run.startedHere > 0;
      if (draining && run.running === 0) {
        carry = run.carry(continuations + 1);
        break;
      }
      if (!draining && testsAsActivities) {
        const size = batchSize(run.readyCount, input.concurrency);
        for (const batch of inBatches(run.takeReady((input.concurrency - busy) * size), size)) launchBatch(batch);
      } else if (!draining) for (const id of run.takeReady(input.concurrency - run.running)) launch(id);
      const finishedBefore = run.finished;
      await condition(() => run.finished > finishedBefore);
    }

    if (!carry) {
      const result = run.result();
      await deleteStates(input.runShortId, run.tests, { graph: graphByReference });
      const finished = await db.finishRun({ runId: input.runId, status: 'COMPLETED', result });
      // How the run ended, for the Temporal UI's filters (histories from before finishRun answered nothing).
      upsertProctorAttributes({ result: result ?? undefined, failureKind: finished?.failureKinds });
      await sendNotifications(input.runId);
      return { status: 'COMPLETED', result, counts: run.counts(), continuations };
    }
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(async () => {
        await condition(() => run.running === 0);
        await deleteStates(input.runShortId, run.tests, { graph: graphByReference });
        await db.finishRun({ runId: input.runId, status: 'CANCELLED', result: null });
        upsertProctorAttributes({ result: 'CANCELLED' });
      });
      return { status: 'CANCELLED', result: null, counts: run.counts(), continuations };
    }
    const error = innermostMessage(err);
    await deleteStates(input.runShortId, run.tests, { graph: graphByReference });
    const finished = await db.finishRun({ runId: input.runId, status: 'ERROR', result: null, error });
    const kinds = new Set([failureKindOf(err), ...(finished?.failureKinds ?? [])]);
    upsertProctorAttributes({ result: 'ERROR', failureKind: [...kinds].sort() });
    await sendNotifications(input.runId);
    return { status: 'ERROR', result: null, counts: run.counts(), continuations };
  }
  log.info('run continues as new', {
    runId: input.runId,
    finished: run.finished,
    of: run.tests.length,
    continuations: carry.continuations,
  });
  return continueAsNew<typeof planRun>({ ...input, carried: carry });
}
