// A plan's cron schedules: the rows are ours, the Schedules and their next fire times are Temporal's. Creating
// and deleting keep the two together; reading is shared by the API's schedule routes and the dashboard's plan page.
import {
  deletePlanScheduleRow,
  findPlanSchedule,
  insertPlanSchedule,
  listPlanScheduleRows,
  type PlanScheduleRow,
} from '../db/queries/plan-schedules.js';
import { NotFoundError } from '../domain/errors.js';
import { newId } from '../ids.js';
import { createPlanSchedule, planScheduleId } from '../temporal/schedules.js';
import { nextRunTimes, scheduleRow, unscheduleRow } from './cron-schedules.js';
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
  const times = await scheduleRow(deps, {
    temporalScheduleId: row.temporal_schedule_id,
    cron: row.cron,
    createSchedule: () =>
      createPlanSchedule(deps.temporal, {
        scheduleId: row.temporal_schedule_id,
        cron: row.cron,
        description: row.description,
        projectId: input.projectId,
        testPlanId: plan.id,
        concurrency: deps.runConcurrency,
      }),
    deleteRow: () => deletePlanScheduleRow(deps.db, id),
    warning: ['could not create a plan schedule', { testPlanId: plan.id }],
  });
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
  await unscheduleRow(deps, row.temporal_schedule_id, () => deletePlanScheduleRow(deps.db, row.id));
}
