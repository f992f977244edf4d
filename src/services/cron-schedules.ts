// What plan schedules (plan-schedules.ts) and discovery schedules (discovery-schedules.ts) share: each is our row
// beside Temporal's Schedule, and creating or deleting one keeps the two together.
import { InvalidError, UnavailableError } from '../domain/errors.js';
import { deletePlanSchedule, describePlanSchedule, InvalidCronError } from '../temporal/schedules.js';
import type { ServiceContext } from './context.js';

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

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** A row just written and how to give it its Temporal Schedule. */
export interface ScheduleOfRow {
  temporalScheduleId: string;
  cron: string;
  createSchedule(): Promise<void>;
  deleteRow(): Promise<void>;
  /** What is logged when Temporal does not take the Schedule. */
  warning: [message: string, fields: Record<string, unknown>];
}

/**
 * Creates the Temporal Schedule of a row just written and answers its next times. An invalid cron (Temporal's
 * verdict) or one that never fires is refused (InvalidError); Temporal unreachable is UnavailableError. Either way the
 * row is deleted again: nothing is kept.
 */
export async function scheduleRow(
  deps: ServiceContext<'temporal' | 'logger'>,
  row: ScheduleOfRow,
): Promise<string[] | undefined> {
  try {
    await row.createSchedule();
  } catch (err) {
    await row.deleteRow();
    if (err instanceof InvalidCronError) throw new InvalidError(err.message);
    deps.logger.warn(row.warning[0], { ...row.warning[1], err });
    throw new UnavailableError(`could not create the schedule in Temporal: ${reason(err)}`);
  }
  const times = await nextRunTimes(deps, row.temporalScheduleId);
  // Valid syntax that matches no future time (31 February, a past year) is a mistake, not a schedule.
  if (times?.length === 0) {
    await deletePlanSchedule(deps.temporal, row.temporalScheduleId);
    await row.deleteRow();
    throw new InvalidError(`cron: "${row.cron}" never fires`);
  }
  return times;
}

/**
 * Deletes a schedule: Temporal first (UnavailableError keeps it), then the row. A row without its Schedule is
 * harmless, a Schedule without its row would keep firing for nothing.
 */
export async function unscheduleRow(
  deps: ServiceContext<'temporal'>,
  temporalScheduleId: string,
  deleteRow: () => Promise<void>,
): Promise<void> {
  try {
    await deletePlanSchedule(deps.temporal, temporalScheduleId);
  } catch (err) {
    throw new UnavailableError(`could not delete the schedule in Temporal (it is kept): ${reason(err)}`);
  }
  await deleteRow();
}
