// A test plan's cron schedules: our rows (the Temporal Schedule of each is src/temporal/schedules.ts).
import type { Selectable } from 'kysely';
import type { DB } from '../database.js';
import type { TestPlanSchedulesTable } from '../schema.js';

export type PlanScheduleRow = Selectable<TestPlanSchedulesTable>;

export async function insertPlanSchedule(
  db: DB,
  input: { id: string; testPlanId: string; cron: string; description: string | null; temporalScheduleId: string },
): Promise<PlanScheduleRow> {
  return db
    .insertInto('test_plan_schedules')
    .values({
      id: input.id,
      test_plan_id: input.testPlanId,
      cron: input.cron,
      description: input.description,
      temporal_schedule_id: input.temporalScheduleId,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deletePlanScheduleRow(db: DB, id: string): Promise<void> {
  await db.deleteFrom('test_plan_schedules').where('id', '=', id).execute();
}

/** A schedule of the plan (already checked to be the caller's). */
export async function findPlanSchedule(
  db: DB,
  testPlanId: string,
  id: string,
): Promise<{ id: string; temporal_schedule_id: string } | undefined> {
  return db
    .selectFrom('test_plan_schedules')
    .select(['id', 'temporal_schedule_id'])
    .where('id', '=', id)
    .where('test_plan_id', '=', testPlanId)
    .executeTakeFirst();
}

/** The plan's schedules, oldest first. */
export async function listPlanScheduleRows(db: DB, testPlanId: string): Promise<PlanScheduleRow[]> {
  return db
    .selectFrom('test_plan_schedules')
    .selectAll()
    .where('test_plan_id', '=', testPlanId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** The schedule a tick fires for, while it and its plan (in that project) still exist. */
export async function findTickSchedule(
  db: DB,
  input: { scheduleId: string; testPlanId: string; projectId: string },
): Promise<{ id: string; description: string | null } | undefined> {
  return db
    .selectFrom('test_plan_schedules as s')
    .innerJoin('test_plans as p', 'p.id', 's.test_plan_id')
    .select(['s.id', 's.description'])
    .where('s.temporal_schedule_id', '=', input.scheduleId)
    .where('s.test_plan_id', '=', input.testPlanId)
    .where('p.project_id', '=', input.projectId)
    .executeTakeFirst();
}

/** Every schedule of the plan: its row id and its Temporal Schedule id. */
export async function planScheduleIds(
  db: DB,
  testPlanId: string,
): Promise<{ id: string; temporal_schedule_id: string }[]> {
  return db
    .selectFrom('test_plan_schedules')
    .select(['id', 'temporal_schedule_id'])
    .where('test_plan_id', '=', testPlanId)
    .execute();
}
