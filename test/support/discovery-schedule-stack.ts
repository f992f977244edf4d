import { expect } from 'vitest';
import { startGeneratedSite, type GeneratedSite } from './generated-site.js';
import { waitFor } from './net.js';
import { startWebhookSink } from './sinks.js';
import { startStack, type Stack } from './worker-context.js';

/** A stack with a generated site as an application's environment, and a Slack sink for the schedules' news. */
export interface DiscoveryScheduleStack {
  stack: Stack;
  site: GeneratedSite;
  hook: Awaited<ReturnType<typeof startWebhookSink>>;
  /** The application's short id. */
  app: string;
  stop(): Promise<void>;
}

export async function startDiscoveryScheduleStack(): Promise<DiscoveryScheduleStack> {
  const [site, hook] = await Promise.all([
    startGeneratedSite({ sections: 2, items: 1, search: false }),
    startWebhookSink(),
  ]);
  const stack = await startStack();
  const app = (await stack.call('POST', '/v1/applications', { name: 'Generated' })).body.shortId as string;
  expect(
    (await stack.call('POST', `/v1/applications/${app}/environments`, { name: 'Local', url: `${site.url}/` })).status,
  ).toBe(201);
  return {
    stack,
    site,
    hook,
    app,
    stop: async () => {
      await stack.close();
      await Promise.all([site.stop(), hook.stop()]);
    },
  };
}

/** Fires a discovery schedule once and waits for that tick's result. */
export async function tickDiscoverySchedule(stack: Stack, scheduleId: string): Promise<any> {
  const client = await stack.temporal.get();
  const handle = client.schedule.getHandle(`discovery-schedule:${scheduleId}`);
  const before = (await handle.describe()).info.numActionsTaken;
  await handle.trigger();
  let workflowId = '';
  await waitFor(
    async () => {
      const described = await handle.describe();
      if (described.info.numActionsTaken <= before) return false;
      const last = described.info.recentActions.at(-1)!.action;
      workflowId = last.type === 'startWorkflow' ? last.workflow.workflowId : '';
      return workflowId !== '';
    },
    30_000,
    'the tick to start',
  );
  return client.workflow.getHandle(workflowId).result();
}
