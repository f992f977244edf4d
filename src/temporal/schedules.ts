// Plan schedules are Temporal Schedules: Temporal keeps the clock, survives restarts and shows every action in its UI.
import {
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type ScheduleDescription,
  type ScheduleOptions,
} from '@temporalio/client';
import { workflowTypes } from '../../workflows/shared.js';
import type { ScheduledPlanRunInput } from '../../workflows/scheduled-plan-run-contract.js';
import type { DB } from '../db/database.js';
import { deletePlanScheduleRow, planScheduleIds } from '../db/queries/plan-schedules.js';
import type { TemporalClientProvider } from './client.js';
import { searchAttributePairs } from '../../workflows/search-attributes-contract.js';
import { searchAttributesRegistered } from './search-attributes.js';

/** The Temporal Schedule id of a plan schedule row (the row's id, so either one finds the other). */
export const planScheduleId = (rowId: string): string => `plan-schedule:${rowId}`;

export interface PlanScheduleInput {
  /** The Temporal Schedule id, `planScheduleId(row id)`. */
  scheduleId: string;
  cron: string;
  description: string | null;
  projectId: string;
  testPlanId: string;
  /** Tests of a scheduled run in parallel at most. */
  concurrency: number;
}

/** Temporal rejected the cron expression (what `cronProblem` (src/domain/cron.ts) lets through but the server does not accept). */
export class InvalidCronError extends Error {
  constructor(message: string) {
    super(`cron: ${message}`);
    this.name = 'InvalidCronError';
  }
}

/**
 * A Schedule that starts `workflowType` with `args` at each tick of `cron` (its workflow id is the Schedule's id, to
 * which Temporal appends the tick's time: `plan-schedule:<id>-2026-11-21T07:00:00Z`). Catch-up one hour: a Temporal
 * restart does not lose a tick, a long outage does not start stale work at odd hours.
 */
export interface CronSchedule {
  scheduleId: string;
  cron: string;
  workflowType: string;
  args: unknown[];
  overlap: ScheduleOverlapPolicy;
  memo: Record<string, unknown>;
  /** The started workflow's summary in the Temporal UI. */
  summary?: string;
  /** Search attributes the tick hands to its workflow, where the namespace has them (search-attributes.ts). */
  searchAttributes?: Parameters<typeof searchAttributePairs>[0];
}

/** Creates the Temporal Schedule; an expression the server rejects is an InvalidCronError. */
export async function createCronSchedule(
  temporal: Pick<TemporalClientProvider, 'get' | 'taskQueue'>,
  schedule: CronSchedule,
): Promise<void> {
  const options: ScheduleOptions = {
    scheduleId: schedule.scheduleId,
    spec: { cronExpressions: [schedule.cron] },
    action: {
      type: 'startWorkflow',
      workflowType: schedule.workflowType,
      workflowId: schedule.scheduleId,
      taskQueue: temporal.taskQueue,
      args: schedule.args,
      ...(schedule.summary && { staticSummary: schedule.summary.slice(0, 200) }),
    },
    policies: { overlap: schedule.overlap, catchupWindow: '1 hour' },
    memo: schedule.memo,
  };
  const client = await temporal.get();
  try {
    if (
      schedule.searchAttributes &&
      (await searchAttributesRegistered(client)) &&
      options.action.type === 'startWorkflow'
    )
      options.action.typedSearchAttributes = searchAttributePairs(schedule.searchAttributes);
    await client.schedule.create(options);
  } catch (err) {
    // The SDK turns the server's `INVALID_ARGUMENT: Invalid schedule spec: <why>` into a TypeError carrying <why>.
    if (err instanceof TypeError) throw new InvalidCronError(err.message);
    throw err;
  }
}

/**
 * What a plan's Schedule does: start `scheduledPlanRun`, which writes the run and runs `planRun` as its child.
 *
 * Overlap BUFFER_ONE: runs of one plan share environments and accounts, so two at once can fail each other, and a
 * plan slower than its period must not pile up runs; a tick that falls during a run is not lost either, but starts
 * (once) when that run ends. ALLOW_ALL would allow both problems; SKIP would silently drop the tick.
 */
export async function createPlanSchedule(
  temporal: Pick<TemporalClientProvider, 'get' | 'taskQueue'>,
  input: PlanScheduleInput,
): Promise<void> {
  const args: [ScheduledPlanRunInput] = [
    {
      projectId: input.projectId,
      testPlanId: input.testPlanId,
      scheduleId: input.scheduleId,
      concurrency: input.concurrency,
    },
  ];
  await createCronSchedule(temporal, {
    scheduleId: input.scheduleId,
    cron: input.cron,
    workflowType: workflowTypes.scheduledPlanRun,
    args,
    overlap: ScheduleOverlapPolicy.BUFFER_ONE,
    memo: { projectId: input.projectId, testPlanId: input.testPlanId, description: input.description },
    summary: `Scheduled run of a plan${input.description ? `: ${input.description}` : ''}`,
    searchAttributes: { project: input.projectId, trigger: 'SCHEDULE' },
  });
}

/** Deletes the Temporal Schedule; one that does not exist (any more) counts as deleted. Running runs go on. */
export async function deletePlanSchedule(
  temporal: Pick<TemporalClientProvider, 'get' | 'taskQueue'>,
  scheduleId: string,
): Promise<void> {
  const client = await temporal.get();
  try {
    await client.schedule.getHandle(scheduleId).delete();
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) return;
    throw err;
  }
}

/** The Temporal side of a schedule, or undefined when Temporal does not know it. */
export async function describePlanSchedule(
  temporal: Pick<TemporalClientProvider, 'get' | 'taskQueue'>,
  scheduleId: string,
): Promise<ScheduleDescription | undefined> {
  const client = await temporal.get();
  try {
    return await client.schedule.getHandle(scheduleId).describe();
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) return undefined;
    throw err;
  }
}

/**
 * Deletes every schedule of a plan, Temporal first: call it before deleting the plan, or the Schedules outlive
 * their rows (the foreign key cascades the rows only) and fire for a plan that is gone (harmless: the scheduled
 * workflow then ends without a run, but the Schedule never goes away).
 */
export async function deletePlanSchedules(
  db: DB,
  temporal: Pick<TemporalClientProvider, 'get' | 'taskQueue'>,
  testPlanId: string,
): Promise<void> {
  const rows = await planScheduleIds(db, testPlanId);
  for (const row of rows) {
    await deletePlanSchedule(temporal, row.temporal_schedule_id);
    await deletePlanScheduleRow(db, row.id);
  }
}
