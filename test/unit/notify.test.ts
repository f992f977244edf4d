import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DB } from '../../src/db/database.js';
import { seedProject } from '../../src/db/queries/admin.js';
import { createTestPlan, type TestPlanWrite } from '../../src/db/queries/test-plans.js';
import type { RunStatus, TestResult } from '../../src/db/schema.js';
import { newShortId } from '../../src/ids.js';
import { silentLogger } from '../../src/logger.js';
import { postChatWebhook } from '../../src/notify/chat.js';
import { createEmailSender } from '../../src/notify/email.js';
import { renderRunReport } from '../../src/notify/message.js';
import {
  createNotifyActivities,
  notificationTargets,
  sendRunNotifications,
  type NotifyDeps,
} from '../../src/notify/run-notifications.js';
import { mapDomainErrors } from '../../activities/failures.js';
import { freshDatabase } from '../support/app-context.js';
import { freePort } from '../support/net.js';
import { rowIdOf } from '../support/row-ids.js';

interface Mail {
  from: string;
  to: string[];
  /** Headers unfolded and quoted-printable soft breaks removed, enough to search the text. */
  raw: string;
}

interface Hook {
  path: string;
  body: { text: string; channel?: string; blocks?: unknown[] };
}

/** Headers unfolded with RFC 2047 words decoded, quoted-printable bodies decoded: enough to search the text. */
function readableMail(raw: string): string {
  const split = raw.indexOf('\r\n\r\n');
  const headers = raw
    .slice(0, split)
    .replace(/\r\n[ \t]+/g, ' ')
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?UTF-8\?Q\?([^?]*)\?=/gi, (_, word: string) => decodeQp(word.replace(/_/g, ' ')));
  const body = decodeQp(raw.slice(split).replace(/=\r\n/g, ''));
  return headers + body;
}

const decodeQp = (s: string): string =>
  Buffer.from(
    s.replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');

const listen = (server: HttpServer | TcpServer): Promise<number> =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));

const closeServer = (server: HttpServer | TcpServer): Promise<void> =>
  new Promise((resolve) => server.close(() => resolve()));

describe('run notifications', () => {
  let db: DB;
  let projectId: string;
  let applicationId: string;
  const mails: Mail[] = [];
  const hooks: Hook[] = [];
  let smtp: SMTPServer;
  let smtpUrl: string;
  let hookServer: HttpServer;
  let hookUrl: string;
  let silent: TcpServer;
  let silentPort: number;
  const silentSockets = new Set<Socket>();

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const raw = readableMail(Buffer.concat(chunks).toString('utf8'));
          mails.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw,
          });
          callback();
        });
      },
    });
    const smtpPort = await freePort();
    await new Promise<void>((resolve) => smtp.listen(smtpPort, '127.0.0.1', () => resolve()));
    smtpUrl = `smtp://127.0.0.1:${smtpPort}`;

    hookServer = createHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.url === '/broken') {
          res.writeHead(500, { 'content-type': 'text/plain' }).end('invalid_payload: channel_not_found');
          return;
        }
        hooks.push({ path: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Hook['body'] });
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    hookUrl = `http://127.0.0.1:${await listen(hookServer)}`;

    // Accepts connections and never says a word: neither an SMTP greeting nor an HTTP answer.
    silent = createTcpServer((socket) => {
      silentSockets.add(socket);
      socket.on('close', () => silentSockets.delete(socket));
      socket.on('error', () => {});
    });
    silentPort = await listen(silent);

    db = await freshDatabase('pglite');
    ({ projectId } = await seedProject(db, { organization: 'Acme', project: 'Shop' }));
    applicationId = randomUUID();
    await db
      .insertInto('applications')
      .values({
        id: applicationId,
        short_id: newShortId('application', 'Shop'),
        project_id: projectId,
        name: 'Shop',
        kind: 'web',
      })
      .execute();
  });

  afterAll(async () => {
    for (const socket of silentSockets) socket.destroy();
    await Promise.all([
      new Promise<void>((resolve) => smtp.close(() => resolve())),
      closeServer(hookServer),
      closeServer(silent),
    ]);
    await db.destroy();
  });

  beforeEach(() => {
    mails.length = 0;
    hooks.length = 0;
  });

  const deps = (overrides: Partial<NotifyDeps> = {}): NotifyDeps => ({
    db,
    logger: silentLogger,
    appUrl: 'https://app.proctor.test/',
    email: createEmailSender({ smtpUrl, from: 'Proctor <proctor@proctor.test>' }),
    ...overrides,
  });

  async function plan(name: string, notifications: TestPlanWrite['notifications']): Promise<string> {
    const shortId = await createTestPlan(db, projectId, { name, notifications });
    return rowIdOf(db, 'test_plans', shortId);
  }

  /** The usual plan: two recipients on failure, a chat webhook always. */
  const standardPlan = (name: string, webhookUrl = `${hookUrl}/hook`) =>
    plan(name, {
      email: { recipients: ['alice@example.test', 'bob@example.test'], notifyOn: 'failure' },
      slack: { webhookUrl, channel: '#qa', notifyOn: 'always' },
    });

  async function run(
    testPlanId: string | null,
    opts: {
      status?: RunStatus;
      result?: TestResult | null;
      notifications?: unknown;
      tests?: { name: string; result: TestResult | null; error?: string }[];
    } = {},
  ): Promise<{ id: string; shortId: string }> {
    const id = randomUUID();
    const shortId = newShortId('run');
    const tests = opts.tests ?? [
      {
        name: 'Checkout shows the confirmation',
        result: 'FAILED',
        error: 'expected heading "Thank you" to be visible',
      },
      { name: 'Login works', result: 'PASSED' },
    ];
    await db
      .insertInto('runs')
      .values({
        id,
        short_id: shortId,
        project_id: projectId,
        test_plan_id: testPlanId,
        status: opts.status ?? 'COMPLETED',
        result: opts.result === undefined ? 'FAILED' : opts.result,
        branch: 'feature/checkout',
        commit_hash: '0123456789abcdef0123',
        notifications: opts.notifications === undefined ? null : JSON.stringify(opts.notifications),
        test_count: tests.length,
        finished_at: new Date(),
      })
      .execute();
    if (tests.length > 0) {
      await db
        .insertInto('run_test_cases')
        .values(
          tests.map((t) => ({
            id: randomUUID(),
            run_id: id,
            name: t.name,
            application_id: applicationId,
            status: 'COMPLETED' as const,
            result: t.result,
            error: t.error ?? null,
          })),
        )
        .execute();
    }
    return { id, shortId };
  }

  it('renders a summary with counts, failures and a link, escaped per medium', () => {
    const rendered = renderRunReport({
      shortId: 'run_abc',
      url: 'https://app.proctor.test/runs/run_abc',
      status: 'COMPLETED',
      result: 'FAILED',
      planName: 'Smoke <nightly>',
      testCount: 3,
      passed: 1,
      failed: 1,
      skipped: 1,
      failedTests: [{ name: 'Cart & checkout', error: 'expected <h1>\nto be visible' }],
      branch: 'main',
      commitHash: 'abcdef0123456789',
    });
    expect(rendered.subject).toBe('[Proctor] Test plan "Smoke <nightly>" failed (run_abc): 1 of 3 failed');
    expect(rendered.text).toContain('3 tests: 1 passed, 1 failed, 1 skipped');
    expect(rendered.text).toContain('- Cart & checkout: expected <h1> to be visible');
    expect(rendered.text).toContain('branch main, commit abcdef012345');
    expect(rendered.html).toContain('Cart &amp; checkout');
    expect(rendered.html).toContain('&lt;h1&gt;');
    expect(rendered.html).not.toContain('<nightly>');
    expect(rendered.slack.text).toContain('<https://app.proctor.test/runs/run_abc|run_abc>');
    expect(JSON.stringify(rendered.slack.blocks)).toContain('Cart &amp; checkout');

    const manyInput = {
      shortId: 'run_abc',
      url: 'https://x.test/runs/run_abc',
      status: 'COMPLETED',
      result: 'FAILED',
      planName: null,
      testCount: 40,
      passed: 0,
      failed: 40,
      skipped: 0,
      failedTests: Array.from({ length: 40 }, (_, i) => ({
        name: `Test ${i} ${'x'.repeat(200)}`,
        error: 'e'.repeat(1000),
      })),
    };
    const many = renderRunReport(manyInput);
    expect(many.text).toContain('and 30 more');
    for (const block of many.slack.blocks ?? []) expect(JSON.stringify(block).length).toBeLessThan(3100);
    expect(renderRunReport({ ...manyInput, status: 'CANCELLED', result: null, failedTests: [] }).subject).toBe(
      '[Proctor] Run was cancelled (run_abc)',
    );
  });

  it('says how many tests were flaky, quarantined failures and regression changes, and only when there are any', () => {
    const base = {
      shortId: 'run_f',
      url: 'https://x.test/runs/run_f',
      status: 'COMPLETED',
      result: 'PASSED',
      planName: null,
      testCount: 4,
      passed: 3,
      failed: 0,
      skipped: 0,
      failedTests: [],
    };
    const rendered = renderRunReport({ ...base, flaky: 2, quarantinedFailed: 1, regressions: 1 });
    expect(rendered.text).toContain(
      '4 tests: 3 passed, 0 failed, 0 skipped; 2 flaky (passed on a retry), 1 quarantined failed (not counted), 1 regression change',
    );
    expect(JSON.stringify(rendered.slack.blocks)).toContain('2 flaky (passed on a retry)');
    expect(renderRunReport({ ...base, flaky: 0, quarantinedFailed: 0, regressions: 0 }).text).toContain(
      '4 tests: 3 passed, 0 failed, 0 skipped\n',
    );
  });

  it('a failed run mails each recipient and posts to the plan’s chat channel', async () => {
    const planId = await standardPlan('Smoke');
    const { id, shortId } = await run(planId);
    const report = await sendRunNotifications(deps(), id);

    expect(report.failed).toEqual([]);
    expect(report.sent.sort()).toEqual(['email:alice@example.test', 'email:bob@example.test', 'slack:#qa']);
    expect(mails.map((m) => m.to).sort()).toEqual([['alice@example.test'], ['bob@example.test']]);
    for (const mail of mails) {
      expect(mail.from).toBe('proctor@proctor.test');
      expect(mail.raw).toContain(`Subject: [Proctor] Test plan "Smoke" failed (${shortId}): 1 of 2 failed`);
      expect(mail.raw).toContain('Checkout shows the confirmation');
      expect(mail.raw).toContain(`https://app.proctor.test/runs/${shortId}`);
      // One message per recipient: nobody sees the other addresses.
      expect(mail.raw).not.toContain(mail.to[0] === 'alice@example.test' ? 'bob@' : 'alice@');
    }

    expect(hooks).toHaveLength(1);
    expect(hooks[0]!.path).toBe('/hook');
    expect(hooks[0]!.body.channel).toBe('#qa');
    expect(hooks[0]!.body.text).toContain(shortId);
    expect(JSON.stringify(hooks[0]!.body.blocks)).toContain('Checkout shows the confirmation');
  });

  it('a passed run only posts to the chat channel: the emails notify on failure', async () => {
    const planId = await standardPlan('Passing');
    const { id } = await run(planId, { result: 'PASSED', tests: [{ name: 'Login works', result: 'PASSED' }] });
    const report = await sendRunNotifications(deps(), id);
    expect(report.sent).toEqual(['slack:#qa']);
    expect(report.skipped.map((s) => s.target).sort()).toEqual(['email:alice@example.test', 'email:bob@example.test']);
    expect(mails).toEqual([]);
    expect(hooks).toHaveLength(1);
    expect(hooks[0]!.body.text).toMatch(/passed/);
  });

  it('a run’s own channel override replaces the plan’s channel for that run only', async () => {
    const planId = await standardPlan('Overridden');
    const overridden = await run(planId, { notifications: [{ type: 'slack', channel: '#release' }] });
    const report = await sendRunNotifications(deps({ email: undefined }), overridden.id);
    expect(report.sent).toEqual(['slack:#release']);
    expect(hooks.map((h) => h.body.channel)).toEqual(['#release']);
    expect(hooks[0]!.path).toBe('/hook');

    hooks.length = 0;
    const plain = await run(planId);
    await sendRunNotifications(deps({ email: undefined }), plain.id);
    expect(hooks.map((h) => h.body.channel)).toEqual(['#qa']);

    // The override's notifyOn wins too: a passed run with "failure only" has nothing to send, and that is no error.
    hooks.length = 0;
    const quiet = await run(planId, {
      result: 'PASSED',
      tests: [],
      notifications: [{ type: 'slack', channel: '#release', notifyOn: 'failure' }],
    });
    const quietReport = await sendRunNotifications(deps(), quiet.id);
    expect(quietReport.sent).toEqual([]);
    expect(quietReport.failed).toEqual([]);
    expect(hooks).toEqual([]);
  });

  it('an override without a plan webhook cannot be delivered and is skipped', async () => {
    const planId = await plan('Mail only', { email: { recipients: ['carol@example.test'], notifyOn: 'always' } });
    const { id } = await run(planId, { notifications: [{ type: 'slack', channel: '#release' }] });
    const resolved = await notificationTargets(db, id);
    expect(resolved?.targets.map((t) => t.label)).toEqual(['email:carol@example.test']);
    expect(resolved?.skipped).toEqual([{ target: 'slack:#release', reason: expect.stringMatching(/no chat webhook/) }]);

    const report = await sendRunNotifications(deps(), id);
    expect(report.sent).toEqual(['email:carol@example.test']);
    expect(hooks).toEqual([]);

    const adHoc = await run(null);
    expect(await sendRunNotifications(deps(), adHoc.id)).toEqual({ sent: [], failed: [], skipped: [] });
  });

  it('reports a dead webhook without throwing while the email still goes out', async () => {
    const deadPort = await freePort();
    const planId = await standardPlan('Dead hook', `http://127.0.0.1:${deadPort}/hook`);
    const { id } = await run(planId);
    const report = await sendRunNotifications(deps(), id);
    expect(report.sent.sort()).toEqual(['email:alice@example.test', 'email:bob@example.test']);
    expect(report.failed).toEqual([{ target: 'slack:#qa', error: expect.stringMatching(/unreachable.*ECONNREFUSED/) }]);
    expect(report.failed[0]!.error).not.toContain(String(deadPort));
    expect(mails).toHaveLength(2);
  });

  it('throws, within bounded time, only when every target failed', async () => {
    const deadSmtp = createEmailSender({
      smtpUrl: `smtp://127.0.0.1:${await freePort()}`,
      from: 'proctor@proctor.test',
    });
    const planId = await standardPlan('All dead', `http://127.0.0.1:${await freePort()}/hook`);
    const { id, shortId } = await run(planId);
    const started = Date.now();
    await expect(sendRunNotifications(deps({ email: deadSmtp }), id)).rejects.toThrow(
      new RegExp(`every notification of run ${shortId} failed`),
    );
    expect(Date.now() - started).toBeLessThan(5_000);

    // An SMTP server that never greets is given up on after the sender's timeout, not nodemailer's minutes.
    const mute = createEmailSender({
      smtpUrl: `smtp://127.0.0.1:${silentPort}`,
      from: 'proctor@proctor.test',
      timeoutMs: 500,
    });
    const brokenHook = await standardPlan('Mute and broken', `${hookUrl}/broken`);
    const second = await run(brokenHook);
    const t0 = Date.now();
    const err = await sendRunNotifications(deps({ email: mute }), second.id).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/email:alice@example.test: .*(timeout|Greeting never received)/i);
    expect((err as Error).message).toContain(
      'slack:#qa: chat webhook answered 500: invalid_payload: channel_not_found',
    );
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  it('a chat webhook that never answers times out', async () => {
    const started = Date.now();
    await expect(postChatWebhook(`http://127.0.0.1:${silentPort}/hook`, { text: 'hi' }, fetch, 300)).rejects.toThrow(
      /no answer within 0.3 s/,
    );
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('the activity fails permanently for a missing or unfinished run and retries delivery failures', async () => {
    const activities = mapDomainErrors(createNotifyActivities(deps()));
    const missing = await activities.sendRunNotifications({ runId: randomUUID() }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ApplicationFailure);
    expect((missing as ApplicationFailure).nonRetryable).toBe(true);

    const planId = await standardPlan('Unfinished');
    const running = await run(planId, { status: 'RUNNING', result: null });
    const unfinished = await activities.sendRunNotifications({ runId: running.id }).catch((e: unknown) => e);
    expect(unfinished).toBeInstanceOf(ApplicationFailure);
    expect((unfinished as ApplicationFailure).nonRetryable).toBe(true);
    expect(hooks).toEqual([]);

    const deadPlan = await plan('Dead only', {
      slack: { webhookUrl: `http://127.0.0.1:${await freePort()}/x`, channel: null, notifyOn: 'always' },
    });
    const dead = await run(deadPlan);
    const retryable = await activities.sendRunNotifications({ runId: dead.id }).catch((e: unknown) => e);
    expect(retryable).not.toBeInstanceOf(ApplicationFailure);
    // Without a channel the label names the webhook's host only: its path is the secret.
    expect((retryable as Error).message).toMatch(/slack:127\.0\.0\.1:\d+: /);
    expect((retryable as Error).message).not.toContain('/x');
  });

  it('refuses a webhook address the network guard refuses', async () => {
    const planId = await standardPlan('Guarded');
    const { id } = await run(planId, { result: 'PASSED', tests: [] });
    const guard = {
      check: async () => ({ allowed: false as const, reason: 'cloud metadata address 169.254.169.254' }),
    };
    await expect(sendRunNotifications(deps({ networkGuard: guard }), id)).rejects.toThrow(/refused: cloud metadata/);
    expect(hooks).toEqual([]);
  });
});
