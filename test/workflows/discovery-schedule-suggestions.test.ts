// A scheduled discovery's suggestions (issue 34, item 5) on the real stack: Temporal's dev server, a worker, Postgres,
// Chromium, a generated site whose home page gains a feedback form between two ticks of one schedule. The second
// discovery proposes exactly one new test, for that form, and its notification names the form; a suggestion the
// team rejected is not proposed again, and a third tick with nothing new proposes nothing and says nothing. Then deep
// help pages appear: each new page is suggested too, though the usual rule would find it too minor.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formId } from '../../src/domain/coverage.js';
import type { GeneratedSite } from '../support/generated-site.js';
import {
  startDiscoveryScheduleStack,
  tickDiscoverySchedule,
  type DiscoveryScheduleStack,
} from '../support/discovery-schedule-stack.js';
import { waitFor } from '../support/net.js';
import type { startWebhookSink } from '../support/sinks.js';
import type { Stack } from '../support/worker-context.js';

describe('a scheduled discovery suggests what is new (dev server, real worker, Postgres, Chromium)', () => {
  let site: GeneratedSite;
  let hook: Awaited<ReturnType<typeof startWebhookSink>>;
  let stack: Stack;
  let app: string;

  const tick = (scheduleId: string) => tickDiscoverySchedule(stack, scheduleId);

  const suggestionsOf = async (discoveryShortId: string): Promise<any[]> => {
    const res = await stack.call('GET', `/v1/discoveries/${discoveryShortId}/suggestions`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.suggestions;
  };

  let env: DiscoveryScheduleStack;
  beforeAll(async () => {
    env = await startDiscoveryScheduleStack();
    ({ stack, site, hook, app } = env);
  }, 120_000);
  afterAll(() => env?.stop());

  it('a new form becomes one suggestion and one notification naming it; a rejected suggestion does not come back; so does each new page', async () => {
    const created = await stack.call('POST', `/v1/applications/${app}/discovery-schedules`, {
      cron: '0 3 1 1 *',
      budget: { pages: 20 },
      notify: { slack: { webhookUrl: hook.url } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const scheduleId = created.body.id as string;

    // The first discovery: the site as it is; no test exists, so each order form (and the pages) is suggested.
    const first = await tick(scheduleId);
    expect(first).toMatchObject({ status: 'COMPLETED', stopReason: 'explored', news: { previousShortId: null } });
    const proposed = await suggestionsOf(first.discoveryShortId);
    expect(proposed.length).toBeGreaterThan(1);
    expect(proposed.some((s) => /order/i.test(s.name))).toBe(true);
    expect(hook.bodies).toEqual([]);
    const rejected = proposed[0];
    expect(
      (await stack.call('POST', `/v1/discoveries/${first.discoveryShortId}/suggestions/${rejected.id}/reject`)).status,
    ).toBe(200);

    // A release adds a feedback form to the home page; the next tick finds it.
    site.setFeedbackForm(true);
    const second = await tick(scheduleId);
    expect(second).toMatchObject({ status: 'COMPLETED', stopReason: 'explored' });
    const diff = (
      await stack.call('GET', `/v1/discoveries/${second.discoveryShortId}/diff?against=${first.discoveryShortId}`)
    ).body;
    expect(diff.patterns.added).toEqual([]);
    expect(diff.forms.added).toHaveLength(1);
    const feedback = diff.forms.added[0];
    expect(feedback.pattern).toBe('/');
    expect(feedback.form.method).toBe('post');
    expect(feedback.form.fields.map((f: any) => f.name)).toEqual(['message']);

    // Exactly one new suggestion, for the feedback form; what was proposed or rejected before is not proposed again.
    const suggested = await suggestionsOf(second.discoveryShortId);
    expect(suggested.map((s) => s.covers)).toEqual([{ patterns: ['/'], forms: [formId(feedback.form)] }]);
    expect(suggested[0]).toMatchObject({ status: 'PROPOSED', startUrl: '/' });
    expect(suggested[0].name).toContain(feedback.form.name);

    // One notification, naming the form.
    expect(second.news).toMatchObject({
      previousShortId: first.discoveryShortId,
      newPatterns: 0,
      newForms: 1,
      failed: [],
    });
    expect(second.news.sent).toHaveLength(1);
    await waitFor(async () => hook.bodies.length === 1, 10_000, 'the webhook post');
    expect(hook.bodies[0].text).toContain(`Form "${feedback.form.name}" on /`);

    // Nothing new: no suggestion (the rejected one stays rejected), no notification.
    const third = await tick(scheduleId);
    expect(third.news).toMatchObject({ previousShortId: second.discoveryShortId, newPatterns: 0, newForms: 0 });
    expect(await suggestionsOf(third.discoveryShortId)).toEqual([]);
    expect(hook.bodies).toHaveLength(1);
    // Over the three discoveries, what the rejected suggestion covers was proposed once: the rejected row.
    const rows = await stack.db
      .selectFrom('discovery_suggestions')
      .select(['id', 'fingerprint', 'status'])
      .where('project_id', '=', stack.tenant.projectId)
      .execute();
    const fingerprint = rows.find((r) => r.id === rejected.id)!.fingerprint;
    expect(rows.filter((r) => r.fingerprint === fingerprint).map((r) => r.status)).toEqual(['REJECTED']);
    expect(rows).toHaveLength(proposed.length + 1);

    // A release adds a help page under each item: new page patterns three links from home, each linked from one
    // pattern, which the usual rule finds too minor to suggest. New since the last discovery, each becomes one.
    site.setHelpPages(true);
    const fourth = await tick(scheduleId);
    const added = (
      await stack.call('GET', `/v1/discoveries/${fourth.discoveryShortId}/diff?against=${third.discoveryShortId}`)
    ).body;
    expect(added.patterns.added.sort()).toEqual(['/section-a/{id}/help', '/section-b/{id}/help']);
    expect(added.forms.added).toEqual([]);
    const helpSuggestions = (await suggestionsOf(fourth.discoveryShortId)).map((s) => s.covers);
    expect(helpSuggestions.sort((a, b) => a.patterns[0].localeCompare(b.patterns[0]))).toEqual([
      { patterns: ['/section-a/{id}/help'], forms: [] },
      { patterns: ['/section-b/{id}/help'], forms: [] },
    ]);
    expect(fourth.news).toMatchObject({ previousShortId: third.discoveryShortId, newPatterns: 2, newForms: 0 });
    await waitFor(async () => hook.bodies.length === 2, 10_000, 'the second webhook post');
    for (const pattern of added.patterns.added) expect(hook.bodies[1].text).toContain(`Page ${pattern}`);
  }, 300_000);
});
