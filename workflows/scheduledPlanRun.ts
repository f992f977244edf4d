import { executeChild, log, ParentClosePolicy, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { dbActivity } from './activity-options.js';
import { planRun } from './planRun.js';
import { workflowIds } from './shared.js';
import { childAttributes, upsertProctorAttributes } from './search-attributes.js';
import type { ScheduledPlanRunInput, ScheduledPlanRunResult } from './scheduled-plan-run-contract.js';

const db = proxyActivities<Activities>(dbActivity);

/**
 * One tick of a plan's schedule: writes the run (trigger SCHEDULE) and runs it as the child `run:<shortId>`, the
 * same workflow under the same id an API-started run has. A plan that is gone or has nothing to run ends the tick
 * with null. The tick waits for its run, so the Schedule's overlap policy sees the run as running.
 */
export async function scheduledPlanRun(input: ScheduledPlanRunInput): Promise<ScheduledPlanRunResult> {
  const run = await db.createScheduledRun(input);
  if (!run) {
    log.info('scheduled run skipped: nothing to run', { testPlanId: input.testPlanId, scheduleId: input.scheduleId });
    return null;
  }
  // The tick names its run in the Temporal UI, and the run carries the schedule's trigger and the plan.
  const names = { run: run.runShortId, plan: run.planShortId };
  upsertProctorAttributes(names);
  const result = await executeChild(planRun, {
    workflowId: workflowIds.planRun(run.runShortId),
    staticSummary: `Run ${run.runShortId} (scheduled): ${run.testCount} test(s)`,
    ...childAttributes({ ...names, trigger: 'SCHEDULE' }),
    // A run outlives its tick (e.g. one terminated by hand), so it still ends and records its result.
    parentClosePolicy: ParentClosePolicy.ABANDON,
    args: [
      {
        runId: run.runId,
        runShortId: run.runShortId,
        projectId: input.projectId,
        concurrency: input.concurrency ?? 100,
        heal: true,
      },
    ],
  });
  upsertProctorAttributes({ result: result.result ?? result.status });
  return { runShortId: run.runShortId, ...result };
}
