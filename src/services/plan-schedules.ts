// Reading a plan's schedules: the rows are ours, their next fire times are Temporal's. Shared by the API's
// schedule routes and the dashboard's plan page.
import type { Selectable } from 'kysely';
import type { DB } from '../db/database.js';
import type { TestPlanSchedulesTable } from '../db/schema.js';
import type { Logger } from '../logger.js';
import type { TemporalClientProvider } from '../temporal/client.js';
import { describePlanSchedule } from '../temporal/schedules.js';

export interface PlanScheduleView {
  id: string;
  cron: string;
  description: string | null;
  /** Absent while Temporal does not answer in time. */
  nextRunTimes?: string[];
  createdAt: string;
}

export type PlanScheduleRow = Selectable<TestPlanSchedulesTable>;

// A list must not hang on Temporal: without an answer in time it shows the schedules without their next times.
const describeTimeoutMs = 2_000;

/** The next (up to 3) fire times of a Temporal Schedule, or undefined when Temporal does not answer in time. */
export async function nextRunTimes(deps: { temporal: TemporalClientProvider; logger: Logger }, temporalScheduleId: string): Promise<string[] | undefined> {
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
export async function listPlanSchedules(deps: { db: DB; temporal: TemporalClientProvider; logger: Logger }, testPlanId: string): Promise<PlanScheduleView[]> {
  const rows = await deps.db.selectFrom('test_plan_schedules').selectAll().where('test_plan_id', '=', testPlanId).orderBy('created_at').orderBy('id').execute();
  const times = await Promise.all(rows.map((row) => nextRunTimes(deps, row.temporal_schedule_id)));
  return rows.map((row, i) => toPlanScheduleView(row, times[i]));
}
