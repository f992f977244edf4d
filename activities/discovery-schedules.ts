import { Context } from '@temporalio/activity';
import type { ActivityDeps } from './deps.js';
import { findTickDiscoverySchedule } from '../src/db/queries/discovery-schedules.js';
import { getDiscovery } from '../src/db/queries/discoveries.js';
import { idFromKey } from '../src/ids.js';
import { writeDiscovery } from '../src/services/discoveries.js';
import { sendDiscoveryNews } from '../src/services/discovery-news.js';
import type { DiscoveryInput } from '../workflows/discovery-contract.js';
import type { ScheduledDiscoveryInput } from '../workflows/scheduled-discovery-contract.js';

/** Discoveries started by an application's discovery schedule (workflows/scheduledDiscovery.ts). */
export function createDiscoveryScheduleActivities(deps: Pick<ActivityDeps, 'db' | 'logger' | 'notify'>) {
  const { db, logger } = deps;
  return {
    /**
     * Writes the discovery of a schedule's tick, as `POST .../discoveries` would, or null when the schedule is gone
     * (a Schedule left behind fires for nobody). Its id comes from the tick's workflow id (unique per scheduled
     * time): a retry after a lost completion finds the discovery it already wrote. A request that cannot run (the
     * application has no environment with a URL any more) fails the tick, visibly, without retries.
     */
    async createScheduledDiscovery(input: ScheduledDiscoveryInput): Promise<DiscoveryInput | null> {
      const schedule = await findTickDiscoverySchedule(db, input);
      if (!schedule) {
        logger.warn('scheduled discovery skipped: the schedule no longer exists', { ...input });
        return null;
      }
      const tick = Context.current().info.workflowExecution?.workflowId;
      if (!tick) throw new Error('createScheduledDiscovery runs only for a tick (a workflow)');
      const id = idFromKey(`discovery-tick:${tick}`);
      const existing = await getDiscovery(db, id);
      const budget = { ...schedule.budget };
      if (existing)
        return {
          discoveryId: id,
          discoveryShortId: existing.short_id,
          projectId: input.projectId,
          budget: existing.budget,
        };
      const written = await writeDiscovery(
        deps,
        input.projectId,
        schedule.application_short_id,
        {
          ...(schedule.environment_short_id && { environmentShortId: schedule.environment_short_id }),
          budget,
          ...(schedule.intent && { intent: schedule.intent }),
        },
        id,
      );
      return written.input;
    },

    /** Sends what the tick's completed discovery found new to the schedule's targets (src/services/discovery-news.ts). */
    async sendDiscoveryNews(input: { discoveryId: string; scheduleId: string }) {
      return sendDiscoveryNews({ db, logger, ...deps.notify }, input);
    },
  };
}
