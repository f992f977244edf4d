import { Context } from '@temporalio/activity';
import type { ActivityDeps } from './deps.js';
import { NothingToRunError } from '../src/domain/errors.js';
import { createPlanRun } from '../src/services/runs.js';
import { findTickSchedule } from '../src/db/queries/plan-schedules.js';
import type { ScheduledPlanRunInput } from '../workflows/scheduled-plan-run-contract.js';

export interface ScheduledRun {
  runId: string;
  runShortId: string;
  testCount: number;
  /** The plan's short id (its search attribute); absent in histories from before. */
  planShortId?: string;
}

/** The tick's workflow id (unique per scheduled time), when running as an activity. */
function tickKey(): string | undefined {
  const workflowId = Context.current().info.workflowExecution?.workflowId;
  return workflowId ? `schedule:${workflowId}` : undefined;
}

/** Runs started by a plan's Temporal Schedule. */
export function createScheduleActivities(deps: Pick<ActivityDeps, 'db' | 'logger'>) {
  const { db, logger } = deps;
  return {
    /**
     * Writes the run of a schedule's tick, or null when there is nothing to run: the schedule or the plan is gone
     * (a Schedule left behind by a deleted plan fires for nobody) or the plan has no enabled test case. A plan that
     * cannot run as configured (e.g. an application without an environment) fails the tick, visibly, without retries.
     */
    async createScheduledRun(input: ScheduledPlanRunInput): Promise<ScheduledRun | null> {
      const schedule = await findTickSchedule(db, input);
      if (!schedule) {
        logger.warn('scheduled run skipped: the schedule or its plan no longer exists', { ...input });
        return null;
      }
      try {
        // Keyed by the tick's workflow id: a retry after a lost completion finds the run it already wrote.
        const run = await createPlanRun(deps, {
          projectId: input.projectId,
          testPlanId: input.testPlanId,
          idempotencyKey: tickKey(),
          meta: { trigger: 'SCHEDULE', actor: `schedule:${schedule.description ?? schedule.id}`.slice(0, 200) },
        });
        return { runId: run.id, runShortId: run.shortId, testCount: run.testCount, planShortId: run.plan.shortId };
      } catch (err) {
        if (err instanceof NothingToRunError) {
          logger.info('scheduled run skipped: the plan has no enabled test case', { ...input });
          return null;
        }
        throw err;
      }
    },
  };
}
