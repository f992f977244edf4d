import type { WorkflowService } from '@temporalio/client';
import type { Backlog } from '../metrics.js';
import { withTimeout } from '../timeouts.js';

// temporal.api.enums.v1.TaskQueueType: the numbers, since @temporalio/proto is not a direct dependency.
const taskQueueTypes = { workflow: 1, activity: 2 } as const;

/**
 * The task queue's backlog per type, from DescribeTaskQueue with stats (Temporal server 1.25 and later): the
 * approximate count Temporal says "can be relied upon for scaling decisions", and the age of the oldest task.
 * `service` is asked for the connection on each read: the API connects lazily, and reconnects.
 */
export function taskQueueBacklogReader(opts: {
  service: () => Promise<WorkflowService>;
  namespace: string;
  taskQueue: string;
  timeoutMs?: number;
}): () => Promise<Backlog[]> {
  const timeoutMs = opts.timeoutMs ?? 2_000;
  // A scrape must not hang on an absent Temporal: the gauges are left out of that scrape instead.
  const read = async (): Promise<Backlog[]> => {
    const service = await opts.service();
    return Promise.all(
      (Object.keys(taskQueueTypes) as (keyof typeof taskQueueTypes)[]).map(async (type) => {
        const { stats } = await service.describeTaskQueue({
          namespace: opts.namespace,
          taskQueue: { name: opts.taskQueue },
          taskQueueType: taskQueueTypes[type],
          reportStats: true,
        });
        const age = stats?.approximateBacklogAge;
        return {
          taskQueue: opts.taskQueue,
          type,
          tasks: Number(stats?.approximateBacklogCount ?? 0),
          ageSeconds: age ? Number(age.seconds ?? 0) + (age.nanos ?? 0) / 1e9 : 0,
        };
      }),
    );
  };
  return () => withTimeout(read(), timeoutMs, () => new Error(`task queue backlog: no answer in ${timeoutMs} ms`));
}
