// Discovery on a schedule (issue 34, item 5) on the real stack: Temporal's dev server (the time-skipping server has
// no Schedules, test/workflows/schedules.test.ts), a worker, Postgres, Chromium, a generated site. A Schedule's
// tick writes a discovery and runs it as `discovery:<shortId>`, as the API would; when it completes, the page
// patterns and forms the application's previous completed discovery did not have are posted to the schedule's
// chat webhook. Ticks are fired by `trigger()` (cron cannot go below a minute).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startDiscoveryScheduleStack,
  tickDiscoverySchedule,
  type DiscoveryScheduleStack,
} from '../support/discovery-schedule-stack.js';
import { waitFor } from '../support/net.js';
import type { startWebhookSink } from '../support/sinks.js';
import type { Stack } from '../support/worker-context.js';

describe('discovery schedules (dev server, real worker, Postgres, Chromium)', () => {
  let hook: Awaited<ReturnType<typeof startWebhookSink>>;
  let stack: Stack;
  let app: string;

  const path = () => `/v1/applications/${app}/discovery-schedules`;
  const client = () => stack.temporal.get();

  const tick = (scheduleId: string) => tickDiscoverySchedule(stack, scheduleId);

  async function schedule(body: Record<string, unknown>): Promise<string> {
    const res = await stack.call('POST', path(), {
      cron: '0 3 1 1 *',
      notify: { slack: { webhookUrl: hook.url } },
      ...body,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  }

  const patternsOf = async (shortId: string): Promise<string[]> =>
    ((await stack.call('GET', `/v1/discoveries/${shortId}/pages`)).body.patterns as any[]).map((p) => p.pattern);

  let env: DiscoveryScheduleStack;
  beforeAll(async () => {
    env = await startDiscoveryScheduleStack();
    ({ stack, hook, app } = env);
  }, 120_000);
  afterAll(() => env?.stop());

  it('a tick runs a discovery; a later one that finds new pages and forms posts them, one with nothing new stays quiet', async () => {
    // A one-page schedule: the home page only, the application's first completed discovery (nothing to compare).
    const small = await schedule({ description: 'home only', budget: { pages: 1 } });
    const first = await tick(small);
    expect(first).toMatchObject({ status: 'COMPLETED', stopReason: 'pages', pages: 1 });
    expect(first.news).toEqual({
      previousShortId: null,
      newPatterns: 0,
      newForms: 0,
      sent: [],
      failed: [],
      skipped: [],
    });
    expect(hook.bodies).toEqual([]);
    // The discovery is what an API-started one is: the same workflow under discovery:<shortId>, the tick its parent.
    const child = await (await client()).workflow.getHandle(`discovery:${first.discoveryShortId}`).describe();
    expect(child).toMatchObject({ type: 'discovery', status: { name: 'COMPLETED' }, taskQueue: stack.taskQueue });
    const parent = await (await client()).workflow.getHandle(child.parentExecution?.workflowId ?? 'none').describe();
    expect(parent.type).toBe('scheduledDiscovery');
    expect(parent.workflowId.startsWith(`discovery-schedule:${small}-`)).toBe(true);
    const firstRow = (await stack.call('GET', `/v1/discoveries/${first.discoveryShortId}`)).body;
    expect(firstRow).toMatchObject({ applicationShortId: app, status: 'COMPLETED', budget: { pages: 1 } });

    // A wider schedule of the same application: every page; what the one-page discovery did not have is news.
    const wide = await schedule({ description: 'everything', budget: { pages: 20 } });
    const second = await tick(wide);
    expect(second).toMatchObject({ status: 'COMPLETED', stopReason: 'explored' });
    const before = await patternsOf(first.discoveryShortId);
    const after = await patternsOf(second.discoveryShortId);
    const added = after.filter((p) => !before.includes(p));
    expect(added.length).toBeGreaterThan(0);
    const diff = (
      await stack.call('GET', `/v1/discoveries/${second.discoveryShortId}/diff?against=${first.discoveryShortId}`)
    ).body;
    expect(second.news).toMatchObject({
      previousShortId: first.discoveryShortId,
      newPatterns: added.length,
      newForms: diff.forms.added.length,
      failed: [],
    });
    expect(second.news.newForms).toBeGreaterThan(0);
    expect(second.news.sent).toHaveLength(1);
    await waitFor(async () => hook.bodies.length === 1, 10_000, 'the webhook post');
    const text: string = hook.bodies[0].text;
    expect(text).toContain(`${added.length} new page pattern(s)`);
    for (const pattern of added.slice(0, 10)) expect(text).toContain(`Page ${pattern}`);
    expect(text).toContain(`/v1/discoveries/${second.discoveryShortId}/diff?against=${first.discoveryShortId}`);

    // The one-page schedule again: compared with the wide discovery it has nothing new, and says nothing.
    const third = await tick(small);
    expect(third.news).toMatchObject({
      previousShortId: second.discoveryShortId,
      newPatterns: 0,
      newForms: 0,
      sent: [],
    });
    expect(hook.bodies).toHaveLength(1);

    for (const id of [small, wide]) expect((await stack.call('DELETE', `${path()}/${id}`)).status).toBe(200);
  }, 240_000);
});
