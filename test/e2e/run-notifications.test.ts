import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';
import { startSmtpSink, startWebhookSink } from '../support/sinks.js';
import { isTerminalRun, startStack, waitForRun, type Stack } from '../support/worker-context.js';
import { waitFor } from '../support/net.js';
import { brokenSteps, insertRecordedTestCase, todoSteps } from '../support/recorded.js';
import { addApplication } from '../support/applications.js';

const finished = (stack: Stack, shortId: string) => waitForRun(stack, shortId, isTerminalRun, 60_000);
const until = (check: () => boolean, what: string) => waitFor(async () => check(), 30_000, what);

describe('run notifications', () => {
  let fixture: FixtureApps;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  let hook: Awaited<ReturnType<typeof startWebhookSink>>;
  let stack: Stack;
  let planShortId: string;

  beforeAll(async () => {
    [fixture, smtp, hook] = await Promise.all([startFixtureApps(), startSmtpSink(), startWebhookSink()]);
    stack = await startStack({ smtpUrl: smtp.url });
    const applicationId = (await addApplication(stack, 'Todo', { name: 'Local', url: `${fixture.url}/todo/` })).id;
    const ok = await insertRecordedTestCase(stack.db, {
      projectId: stack.tenant.projectId,
      applicationId,
      name: 'add milk',
      steps: todoSteps('milk'),
    });
    const broken = await insertRecordedTestCase(stack.db, {
      projectId: stack.tenant.projectId,
      applicationId,
      name: 'archive all',
      steps: brokenSteps,
    });
    const plan = await stack.call('POST', '/v1/test-plans', {
      name: 'Nightly',
      testCaseIds: [ok, broken],
      notifications: {
        email: { recipients: ['qa@example.com', 'lead@example.com'], notifyOn: 'failure' },
        slack: { webhookUrl: hook.url, channel: '#qa', notifyOn: 'always' },
      },
    });
    expect(plan.status).toBe(201);
    planShortId = plan.body.shortId;
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
    await Promise.all([fixture?.stop(), smtp?.stop(), hook?.stop()]);
  });

  it('mails the recipients and posts to the chat webhook when a run fails', async () => {
    const started = await stack.call('POST', '/v1/run', { testPlanShortId: planShortId });
    const run = await finished(stack, started.body.run.shortId);
    expect(run.result).toBe('FAILED');
    await until(() => smtp.messages.length >= 2 && hook.bodies.length >= 1, 'notifications');
    expect(smtp.messages.flatMap((m) => m.to).sort()).toEqual(['lead@example.com', 'qa@example.com']);
    expect(smtp.messages[0]!.raw).toContain(run.shortId);
    expect(smtp.messages[0]!.raw).toContain('archive all');
    expect(hook.bodies[0].channel).toBe('#qa');
    expect(JSON.stringify(hook.bodies[0])).toContain(run.shortId);
  });

  it("a run's notifications override replaces the chat channel for that run only", async () => {
    const before = hook.bodies.length;
    const started = await stack.call('POST', '/v1/run', {
      testPlanShortId: planShortId,
      notifications: [{ type: 'slack', channel: '#release', notifyOn: 'always' }],
    });
    await finished(stack, started.body.run.shortId);
    await until(() => hook.bodies.length > before, 'the override notification');
    expect(hook.bodies.at(-1).channel).toBe('#release');
  });

  it('dead sinks do not fail the run', async () => {
    await Promise.all([smtp.stop(), hook.stop()]);
    const started = await stack.call('POST', '/v1/run', { testPlanShortId: planShortId });
    const run = await finished(stack, started.body.run.shortId);
    expect(run.status).toBe('COMPLETED');
    expect(run.result).toBe('FAILED');
    expect(run.error).toBeNull();
  });
});
