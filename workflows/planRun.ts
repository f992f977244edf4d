import {
  CancellationScope,
  ChildWorkflowCancellationType,
  condition,
  executeChild,
  isCancellation,
  log,
  proxyActivities,
} from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import { decide, runResult, type Outcome } from '../src/domain/run-plan.js';
import { dbActivity } from './activity-options.js';
import { innermostMessage } from './errors.js';
import { testExecution } from './testExecution.js';
import { workflowIds, type PlanRunInput, type PlanRunResult } from './shared.js';

type Activities = ReturnType<typeof createActivities>;
const db = proxyActivities<Activities>(dbActivity);
const notify = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 5, initialInterval: '2 seconds' } });

/**
 * A run of a test plan: every test a child `testExecution`, started as soon as its dependencies passed,
 * at most `concurrency` at once; a test whose dependency did not pass is SKIPPED with the reason.
 */
export async function planRun(input: PlanRunInput): Promise<PlanRunResult> {
  const outcomes = new Map<string, Outcome>();
  const states = new Map<string, unknown>();
  const started = new Set<string>();
  let running = 0;

  try {
    await db.markRunStarted({ runId: input.runId });
    const tests = await db.loadRunPlan({ runId: input.runId });
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
            state: test.resumeFrom ? states.get(test.resumeFrom) : undefined,
            captureState: resumedFrom.has(testCaseId),
            heal: input.heal,
          },
        ],
      }).then(
        (result) => {
          outcomes.set(testCaseId, result.outcome);
          if (result.state !== undefined) states.set(testCaseId, result.state);
          running--;
        },
        (err: unknown) => {
          outcomes.set(testCaseId, isCancellation(err) ? 'CANCELLED' : 'ERROR');
          if (!isCancellation(err)) log.warn('test execution failed', { testCaseId, error: innermostMessage(err) });
          running--;
        },
      );
    };

    while (outcomes.size < tests.length) {
      const { ready, skip } = decide(tests, outcomes, started);
      if (skip.length > 0) {
        await db.skipTests({ runId: input.runId, skips: skip });
        for (const s of skip) outcomes.set(s.testCaseId, 'SKIPPED');
        continue;
      }
      for (const id of ready.slice(0, Math.max(0, input.concurrency - running))) launch(id);
      const finishedBefore = outcomes.size;
      await condition(() => outcomes.size > finishedBefore);
    }

    const result = runResult(outcomes.values());
    await db.finishRun({ runId: input.runId, status: 'COMPLETED', result });
    await sendNotifications(input.runId);
    return { status: 'COMPLETED', result, counts: count(outcomes) };
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(async () => {
        await condition(() => running === 0);
        await db.finishRun({ runId: input.runId, status: 'CANCELLED', result: null });
      });
      return { status: 'CANCELLED', result: null, counts: count(outcomes) };
    }
    const error = innermostMessage(err);
    await db.finishRun({ runId: input.runId, status: 'ERROR', result: null, error });
    await sendNotifications(input.runId);
    return { status: 'ERROR', result: null, counts: count(outcomes) };
  }
}

// A notification that cannot be delivered is logged, never a reason to fail the run.
async function sendNotifications(runId: string): Promise<void> {
  try {
    await notify.sendRunNotifications({ runId });
  } catch (err) {
    log.warn('run notifications failed', { runId, error: innermostMessage(err) });
  }
}

function count(outcomes: Map<string, Outcome>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes.values()) counts[o] = (counts[o] ?? 0) + 1;
  return counts;
}
