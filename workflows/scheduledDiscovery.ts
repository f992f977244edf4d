import { executeChild, log, ParentClosePolicy, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { bestEffortActivity, dbActivity } from './activity-options.js';
import { discovery } from './discovery.js';
import { innermostMessage } from './errors.js';
import { workflowIds } from './shared.js';
import type {
  DiscoveryNewsReport,
  ScheduledDiscoveryInput,
  ScheduledDiscoveryResult,
} from './scheduled-discovery-contract.js';

const db = proxyActivities<Activities>(dbActivity);
const bestEffort = proxyActivities<Activities>(bestEffortActivity);

/**
 * One tick of a discovery schedule (issue 34, item 5): writes the discovery, as `POST .../discoveries` does, and
 * runs it as the child `discovery:<shortId>`, the same workflow under the same id an API-started one has (the
 * discovery workflow itself is unchanged). When it completes, what it found that the application's previous
 * completed discovery had not is sent to the schedule's notification targets. A schedule that is gone ends the tick
 * with null. The tick waits for its discovery, so the Schedule's overlap policy sees it as running.
 */
export async function scheduledDiscovery(input: ScheduledDiscoveryInput): Promise<ScheduledDiscoveryResult> {
  const written = await db.createScheduledDiscovery(input);
  if (!written) {
    log.info('scheduled discovery skipped: its schedule no longer exists', { scheduleId: input.scheduleId });
    return null;
  }
  const result = await executeChild(discovery, {
    workflowId: workflowIds.discovery(written.discoveryShortId),
    // A discovery outlives its tick (one terminated by hand), so it still ends and records its map.
    parentClosePolicy: ParentClosePolicy.ABANDON,
    args: [written],
  });
  let news: DiscoveryNewsReport | null = null;
  if (result.status === 'COMPLETED') {
    try {
      news = await bestEffort.sendDiscoveryNews({ discoveryId: written.discoveryId, scheduleId: input.scheduleId });
    } catch (err) {
      log.warn('discovery news not sent', { discoveryId: written.discoveryId, error: innermostMessage(err) });
    }
  }
  return { ...result, discoveryShortId: written.discoveryShortId, news };
}
