// An application's cron schedules of discoveries: our rows (the Temporal Schedule of each is
// src/temporal/discovery-schedules.ts).
import type { Selectable } from 'kysely';
import type { DB } from '../database.js';
import type { DiscoverySchedulesTable } from '../schema.js';
import type { DiscoveryBudget } from '../../domain/discovery.js';
import type { DiscoveryNotify } from '../../domain/discovery-news.js';

export type DiscoveryScheduleRow = Selectable<DiscoverySchedulesTable> & {
  application_short_id: string;
  environment_short_id: string | null;
};

export async function insertDiscoverySchedule(
  db: DB,
  input: {
    id: string;
    projectId: string;
    applicationId: string;
    environmentId: string | null;
    cron: string;
    description: string | null;
    budget: Partial<DiscoveryBudget> | null;
    intent: string | null;
    notify: DiscoveryNotify;
    temporalScheduleId: string;
  },
): Promise<void> {
  await db
    .insertInto('discovery_schedules')
    .values({
      id: input.id,
      project_id: input.projectId,
      application_id: input.applicationId,
      environment_id: input.environmentId,
      cron: input.cron,
      description: input.description,
      budget: input.budget ? JSON.stringify(input.budget) : null,
      intent: input.intent,
      notify: JSON.stringify(input.notify),
      temporal_schedule_id: input.temporalScheduleId,
    })
    .execute();
}

export async function deleteDiscoveryScheduleRow(db: DB, id: string): Promise<void> {
  await db.deleteFrom('discovery_schedules').where('id', '=', id).execute();
}

const selectSchedules = (db: DB) =>
  db
    .selectFrom('discovery_schedules as s')
    .innerJoin('applications as a', 'a.id', 's.application_id')
    .leftJoin('environments as e', 'e.id', 's.environment_id')
    .selectAll('s')
    .select(['a.short_id as application_short_id', 'e.short_id as environment_short_id']);

/** A schedule of the application (already checked to be the caller's). */
export async function findDiscoverySchedule(
  db: DB,
  applicationId: string,
  id: string,
): Promise<DiscoveryScheduleRow | undefined> {
  return selectSchedules(db).where('s.id', '=', id).where('s.application_id', '=', applicationId).executeTakeFirst();
}

/** The schedule a tick fires for, while it (in that project) still exists. */
export async function findTickDiscoverySchedule(
  db: DB,
  input: { scheduleId: string; projectId: string },
): Promise<DiscoveryScheduleRow | undefined> {
  return selectSchedules(db)
    .where('s.temporal_schedule_id', '=', input.scheduleId)
    .where('s.project_id', '=', input.projectId)
    .executeTakeFirst();
}

/** The application's schedules, oldest first. */
export async function listDiscoveryScheduleRows(db: DB, applicationId: string): Promise<DiscoveryScheduleRow[]> {
  return selectSchedules(db)
    .where('s.application_id', '=', applicationId)
    .orderBy('s.created_at')
    .orderBy('s.id')
    .execute();
}
