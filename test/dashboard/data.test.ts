import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertChat } from '../../src/db/queries/chats.js';
import { insertTurn, writePartialReply } from '../../src/db/queries/chat-turns.js';
import { newId, newShortId } from '../../src/ids.js';
import { deletePlanSchedules } from '../../src/temporal/schedules.js';
import { loadApplications } from '../../src/db/queries/dashboard-applications.js';
import { loadConversation, messageLimit } from '../../src/db/queries/dashboard-chats.js';
import { loadPlanSummaries } from '../../src/db/queries/dashboard-test-plans.js';
import { loadPlan } from '../../src/services/dashboard.js';
import { createApiContext, type ApiContext } from '../support/app-context.js';
import { insertRecordedTestCase, loginSteps, applicationIdOf } from '../support/recorded.js';
import { rowIdOf } from '../support/row-ids.js';

// The dashboard's data for the session's project: what each page shows, and nothing of another project.
// Rows are made through the API where it has a route, so the shapes are the ones users create.

describe('dashboard data loaders', () => {
  let ctx: ApiContext;
  let app: { shortId: string; id: string };
  let staging: string;
  let preview: string;

  beforeAll(async () => {
    ctx = await createApiContext('postgres');
    const created = await ctx.call('POST', '/v1/applications', { name: 'Shop', kind: 'web' });
    app = {
      shortId: created.body.shortId,
      id: await applicationIdOf(ctx.db, created.body.shortId),
    };
    staging = (
      await ctx.call('POST', `/v1/applications/${app.shortId}/environments`, {
        name: 'Staging',
        url: 'https://staging.shop.test',
      })
    ).body.shortId;
    preview = (
      await ctx.call('POST', `/v1/applications/${app.shortId}/environments`, {
        name: 'Preview',
        url: 'https://pr-1.shop.test',
      })
    ).body.shortId;
    const theirs = (await ctx.call('POST', '/v1/applications', { name: 'Theirs', kind: 'web' }, ctx.other.token)).body
      .shortId;
    await ctx.call(
      'POST',
      `/v1/applications/${theirs}/environments`,
      { name: 'Their staging', url: 'https://them.test' },
      ctx.other.token,
    );
  });
  afterAll(() => ctx?.close());

  it('lists each application with its own environments, the first one the default', async () => {
    const apps = await loadApplications(ctx.db, ctx.tenant.projectId);
    expect(apps.map((a) => a.name)).toEqual(['Shop']);
    expect(apps[0]!.environments).toEqual([
      {
        shortId: staging,
        name: 'Staging',
        url: 'https://staging.shop.test',
        buildShortId: null,
        isProduction: false,
        isDefault: true,
      },
      {
        shortId: preview,
        name: 'Preview',
        url: 'https://pr-1.shop.test',
        buildShortId: null,
        isProduction: false,
        isDefault: false,
      },
    ]);
    const theirs = await loadApplications(ctx.db, ctx.other.projectId);
    expect(theirs.map((a) => [a.name, a.environments.map((e) => e.name)])).toEqual([['Theirs', ['Their staging']]]);
  });

  it("shows a plan with names for its ids, its schedules' next times, and the Slack webhook's host only", async () => {
    const testCaseId = await insertRecordedTestCase(ctx.db, {
      projectId: ctx.tenant.projectId,
      applicationId: app.id,
      name: 'login',
      steps: loginSteps,
    });
    const plan = await ctx.call('POST', '/v1/test-plans', {
      name: 'Nightly',
      testCaseIds: [testCaseId],
      applications: [{ applicationShortId: app.shortId, environmentShortId: preview }],
      notifications: {
        slack: {
          webhookUrl: 'https://hooks.slack.test/services/T000/B000/s3cretpart',
          channel: '#qa',
          notifyOn: 'failure',
        },
      },
    });
    expect(plan.status).toBe(201);
    const schedule = await ctx.call('POST', `/v1/test-plans/${plan.body.shortId}/schedules`, {
      cron: '0 6 * * 1-5',
      description: 'Weekday mornings',
    });
    expect(schedule.status).toBe(201);
    try {
      const page = await loadPlan(ctx.deps, ctx.tenant.projectId, plan.body.shortId);
      expect(page?.plan).toMatchObject({
        name: 'Nightly',
        isDefault: true,
        testCases: [{ id: testCaseId, name: 'login', applicationShortId: app.shortId }],
      });
      expect(page?.applications).toEqual([
        {
          applicationShortId: app.shortId,
          applicationName: 'Shop',
          environmentShortId: preview,
          environmentName: 'Preview',
          environmentUrl: 'https://pr-1.shop.test',
        },
      ]);
      expect(page?.schedules).toEqual([
        {
          id: schedule.body.id,
          cron: '0 6 * * 1-5',
          description: 'Weekday mornings',
          nextRunTimes: schedule.body.nextRunTimes,
          createdAt: expect.any(String),
        },
      ]);
      expect(page?.notifications.slack).toEqual({
        webhookHost: 'hooks.slack.test',
        channel: '#qa',
        notifyOn: 'failure',
      });
      expect(JSON.stringify(page)).not.toContain('s3cretpart');

      expect(await loadPlanSummaries(ctx.db, ctx.tenant.projectId)).toEqual([
        {
          shortId: plan.body.shortId,
          name: 'Nightly',
          description: null,
          isDefault: true,
          testCaseCount: 1,
          scheduleCount: 1,
        },
      ]);
      // Another project sees neither the plan nor its schedule.
      expect(await loadPlan(ctx.deps, ctx.other.projectId, plan.body.shortId)).toBeUndefined();
      expect(await loadPlanSummaries(ctx.db, ctx.other.projectId)).toEqual([]);
    } finally {
      await deletePlanSchedules(ctx.db, ctx.deps.temporal, await rowIdOf(ctx.db, 'test_plans', plan.body.shortId));
    }
  });

  it('gives a conversation in reading order, says while a reply is open, and hides it from another project', async () => {
    const chatId = newId();
    const shortId = newShortId('chat');
    await insertChat(ctx.db, {
      id: chatId,
      shortId,
      projectId: ctx.tenant.projectId,
      source: 'ui',
      applicationOverrides: [],
    });
    const reply = newId();
    await insertTurn(ctx.db, {
      chatId,
      turn: 1,
      text: 'What tests do I have?',
      userMessageId: newId(),
      assistantMessageId: reply,
    });
    expect(await writePartialReply(ctx.db, reply, 'You have')).toBe(true);

    const page = await loadConversation(ctx.db, ctx.tenant.projectId, shortId);
    expect(page?.messages.map((m) => [m.role, m.status, m.text])).toEqual([
      ['user', 'COMPLETED', 'What tests do I have?'],
      ['assistant', 'PARTIAL', 'You have'],
    ]);
    expect(page?.replying).toBe(true);
    expect(page?.truncated).toBe(false);
    expect(await loadConversation(ctx.db, ctx.other.projectId, shortId)).toBeUndefined();

    // A long conversation shows its newest messages, still oldest first, and says that earlier ones exist.
    for (let turn = 2; turn <= messageLimit / 2 + 1; turn++) {
      await insertTurn(ctx.db, {
        chatId,
        turn,
        text: `message ${turn}`,
        userMessageId: newId(),
        assistantMessageId: newId(),
      });
    }
    const long = await loadConversation(ctx.db, ctx.tenant.projectId, shortId);
    expect(long?.messages).toHaveLength(messageLimit);
    expect(long?.truncated).toBe(true);
    expect(long?.messages.at(-2)?.text).toBe(`message ${messageLimit / 2 + 1}`);
    expect(long?.messages[0]?.text).toBe('message 2');
  });
});
