// Discovery schedules are Temporal Schedules, as plan schedules are (src/temporal/schedules.ts, whose delete and
// describe serve both: they go by the Schedule's id).
import { ScheduleOverlapPolicy } from '@temporalio/client';
import { workflowTypes } from '../../workflows/shared.js';
import type { ScheduledDiscoveryInput } from '../../workflows/scheduled-discovery-contract.js';
import type { DB } from '../db/database.js';
import { deleteDiscoveryScheduleRow, listDiscoveryScheduleRows } from '../db/queries/discovery-schedules.js';
import type { TemporalClientProvider } from './client.js';
import { createCronSchedule, deletePlanSchedule } from './schedules.js';

/** The Temporal Schedule id of a discovery schedule row. */
export const discoveryScheduleId = (rowId: string): string => `discovery-schedule:${rowId}`;

export interface DiscoveryScheduleInput {
  scheduleId: string;
  cron: string;
  description: string | null;
  projectId: string;
  applicationShortId: string;
}

/**
 * What the Schedule does: start `scheduledDiscovery`, which writes the discovery and runs it as its child.
 * Overlap SKIP (plans buffer one): a tick that falls while the previous discovery still explores would map the same
 * application again right after it, for nothing new; the next tick explores then.
 */
export async function createDiscoverySchedule(
  temporal: Pick<TemporalClientProvider, 'get' | 'taskQueue'>,
  input: DiscoveryScheduleInput,
): Promise<void> {
  const args: [ScheduledDiscoveryInput] = [{ projectId: input.projectId, scheduleId: input.scheduleId }];
  await createCronSchedule(temporal, {
    scheduleId: input.scheduleId,
    cron: input.cron,
    workflowType: workflowTypes.scheduledDiscovery,
    args,
    overlap: ScheduleOverlapPolicy.SKIP,
    memo: {
      projectId: input.projectId,
      applicationShortId: input.applicationShortId,
      description: input.description,
    },
  });
}

/**
 * Deletes every discovery schedule of an application, Temporal first: call it before deleting the application, or
 * the Schedules outlive their rows (the foreign key cascades the rows only) and fire for nobody for ever.
 */
export async function deleteApplicationDiscoverySchedules(
  db: DB,
  temporal: Pick<TemporalClientProvider, 'get' | 'taskQueue'> | undefined,
  applicationId: string,
): Promise<void> {
  const rows = await listDiscoveryScheduleRows(db, applicationId);
  if (rows.length === 0) return;
  if (!temporal) throw new Error('no Temporal client to delete its discovery schedules with');
  for (const row of rows) {
    await deletePlanSchedule(temporal, row.temporal_schedule_id);
    await deleteDiscoveryScheduleRow(db, row.id);
  }
}
