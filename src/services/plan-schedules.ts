// A plan's cron schedules: the rows are ours, the Schedules and their next fire times are Temporal's. Creating
// and deleting keep the two together; reading is shared by the API's schedule routes and the dashboard's plan page.
import {
  deletePlanScheduleRow,
  findPlanSchedule,
  insertPlanSchedule,
  listPlanScheduleRows,
  type PlanScheduleRow,
} from '../db/queries/plan-schedules.js';
import { InvalidError, NotFoundError, UnavailableError } from '../domain/errors.js';
import { newId } from '../ids.js';
import {
  createPlanSchedule,
  deletePlanSchedule,
  describePlanSchedule,
  InvalidCronError,
  planScheduleId,
} from '../temporal/schedules.js';
import { requireTestPlan } from './test-plans.js';
import type { ServiceContext } from './context.js';

export interface PlanScheduleView {
  id: string;
  cron: string;
  description: string | null;
  /** Absent while Temporal does not answer in time. */
  nextRunTimes?: string[];
  createdAt: string;
}

export type { PlanScheduleRow };

// A list must not hang on Temporal: without an answer in time it shows the schedules without their next times.
const describeTimeoutMs = 2_000;

/** The next (up to 3) fire times of a Temporal Schedule, or undefined when Temporal does not answer in time. */
export async function nextRunTimes(
  deps: ServiceContext<'temporal' | 'logger'>,
  temporalScheduleId: string,
): Promise<string[] | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, describeTimeoutMs, undefined)));
  try {
    const description = await Promise.race([describePlanSchedule(deps.temporal, temporalScheduleId), timeout]);
    return description?.info.nextActionTimes.slice(0, 3).map((t) => t.toISOString());
  } catch (err) {
    deps.logger.warn('could not describe a plan schedule', { temporalScheduleId, err });
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

export function toPlanScheduleView(row: PlanScheduleRow, times: string[] | undefined): PlanScheduleView {
  return {
    id: row.id,
    cron: row.cron,
    description: row.description,
    ...(times && { nextRunTimes: times }),
    createdAt: row.created_at.toISOString(),
  };
}

/** The schedules of a plan (already checked to be the caller's), oldest first, with their next times. */
export async function listPlanSchedules(
  deps: ServiceContext<'temporal' | 'logger'>,
  testPlanId: string,
): Promise<PlanScheduleView[]> {
  const rows = await listPlanScheduleRows(deps.db, testPlanId);
  const times = await Promise.all(rows.map((row) => nextRunTimes(deps, row.temporal_schedule_id)));
  return rows.map((row, i) => toPlanScheduleView(row, times[i]));
}

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Schedules runs of the caller's plan: the row, then its Temporal Schedule. An invalid cron (Temporal's verdict) or
 * one that never fires is refused (InvalidError); Temporal unreachable is UnavailableError. Either way nothing is kept.
 */
export async function createSchedule(
  deps: ServiceContext<'temporal' | 'logger' | 'runConcurrency'>,
  input: { projectId: string; testPlanShortId: string; cron: string; description?: string },
): Promise<PlanScheduleView> {
  const plan = await requireTestPlan(deps, input.projectId, input.testPlanShortId);
  const id = newId();
  // The row first: a tick finds it (for its description), and a failure below removes it again.
  const row = await insertPlanSchedule(deps.db, {
    id,
    testPlanId: plan.id,
    cron: input.cron.trim(),
    description: input.description || null,
    temporalScheduleId: planScheduleId(id),
  });
  try {
    await createPlanSchedule(deps.temporal, {
      scheduleId: row.temporal_schedule_id,
      cron: row.cron,
      description: row.description,
      projectId: input.projectId,
      testPlanId: plan.id,
      concurrency: deps.runConcurrency,
    });
  } catch (err) {
    await deletePlanScheduleRow(deps.db, id);
    if (err instanceof InvalidCronError) throw new InvalidError(err.message);
    deps.logger.warn('could not create a plan schedule', { testPlanId: plan.id, err });
    throw new UnavailableError(`could not create the schedule in Temporal: ${reason(err)}`);
  }
  const times = await nextRunTimes(deps, row.temporal_schedule_id);
  // Valid syntax that matches no future time (31 February, a past year) is a mistake, not a schedule.
  if (times?.length === 0) {
    await deletePlanSchedule(deps.temporal, row.temporal_schedule_id);
    await deletePlanScheduleRow(deps.db, id);
    throw new InvalidError(`cron: "${row.cron}" never fires`);
  }
  return toPlanScheduleView(row, times);
}

/** Deletes a schedule of the caller's plan: Temporal first (UnavailableError keeps it), then the row. */
export async function deleteSchedule(
  deps: Pick<ServiceContext<'temporal' | 'logger' | 'runConcurrency'>, 'db' | 'temporal'>,
  input: { projectId: string; testPlanShortId: string; scheduleId: string },
): Promise<void> {
  const plan = await requireTestPlan(deps, input.projectId, input.testPlanShortId);
  const row = await findPlanSchedule(deps.db, plan.id, input.scheduleId.toLowerCase());
  if (!row) throw new NotFoundError('Schedule');
  // Temporal first: a row without its Schedule is harmless, a Schedule without its row would keep firing for nothing.
  try {
    await deletePlanSchedule(deps.temporal, row.temporal_schedule_id);
  } catch (err) {
    throw new UnavailableError(`could not delete the schedule in Temporal (it is kept): ${reason(err)}`);
  }
  await deletePlanScheduleRow(deps.db, row.id);
}
