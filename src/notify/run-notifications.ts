// Run-completion notifications: who hears about a finished run, and sending to each of them independently.
import { z } from 'zod';
import type { NetworkGuard } from '../browser/context/network-guard.js';
import type { DB } from '../db/database.js';
import {
  findNotificationRun,
  planNotificationRows,
  runReportRow,
  runReportTests,
} from '../db/queries/run-notifications.js';
import type { NotifyOn, RunStatus, TestResult } from '../db/schema.js';
import type { Logger } from '../logger.js';
import { RunNotFinishedError, RunNotFoundError } from '../domain/errors.js';
import { postChatWebhook } from './chat.js';
import type { EmailSender } from './email.js';
import { renderRunReport, type RunReport } from './message.js';

export type NotificationTarget =
  | { channel: 'email'; label: string; to: string }
  | {
      channel: 'slack';
      label: string;
      webhookUrl: string;
      /** Sent in the payload; null posts to the webhook's own channel. */
      slackChannel: string | null;
      /** True when the channel comes from the run's own override rather than the plan. */
      override: boolean;
    };

export interface ResolvedNotifications {
  run: {
    id: string;
    shortId: string;
    status: RunStatus;
    result: TestResult | null;
    testPlanId: string | null;
    planName: string | null;
  };
  targets: NotificationTarget[];
  /** Configured but not sent for this run, with why (notifyOn, or an override with no webhook to use). */
  skipped: { target: string; reason: string }[];
}

export interface RunNotificationReport {
  sent: string[];
  failed: { target: string; error: string }[];
  skipped: { target: string; reason: string }[];
}

export interface NotifyDeps {
  db: DB;
  logger: Logger;
  /** Dashboard base address: the messages link to `<appUrl>/runs/<shortId>`. */
  appUrl: string;
  /** Absent when no SMTP server is configured: email recipients are then skipped with a warning. */
  email?: EmailSender;
  fetchImpl?: typeof fetch;
  /** Refuses webhook URLs that point at cloud metadata or (by deployment policy) private networks. */
  networkGuard?: Pick<NetworkGuard, 'check'>;
}

const terminal: readonly RunStatus[] = ['COMPLETED', 'ERROR', 'CANCELLED'];

// What `POST /v1/run` stores in `runs.notifications`; anything else there is ignored rather than fatal.
const RunOverride = z.array(
  z.object({
    type: z.literal('slack'),
    channel: z.string().trim().min(1),
    notifyOn: z.enum(['failure', 'always']).optional(),
  }),
);

function parseOverride(value: unknown): z.infer<typeof RunOverride> | undefined | 'invalid' {
  if (value === null || value === undefined) return undefined;
  let raw = value;
  if (typeof raw === 'string') {
    try {
      raw = JSON.parse(raw);
    } catch {
      return 'invalid';
    }
  }
  const parsed = RunOverride.safeParse(raw);
  if (!parsed.success) return 'invalid';
  return parsed.data.length > 0 ? parsed.data : undefined;
}

const wanted = (notifyOn: NotifyOn, result: TestResult | null): boolean => notifyOn === 'always' || result !== 'PASSED';

const slackLabel = (channel: string | null, webhookUrl: string): string => {
  if (channel) return `slack:${channel}`;
  // The webhook URL carries its secret in the path: only its host may appear in logs and reports.
  try {
    return `slack:${new URL(webhookUrl).host}`;
  } catch {
    return 'slack:(invalid webhook URL)';
  }
};

/**
 * What to send for a run: the plan's email recipients (one message each, so addresses are not disclosed to one
 * another) and its chat webhook. A run's own `notifications` override replaces the plan's chat channel (and
 * notifyOn) for this run only; it is delivered through the plan's webhook, so without one it is skipped.
 * Undefined when the run does not exist.
 */
export async function notificationTargets(db: DB, runId: string): Promise<ResolvedNotifications | undefined> {
  const run = await findNotificationRun(db, runId);
  if (!run) return undefined;

  const resolved: ResolvedNotifications = {
    run: {
      id: run.id,
      shortId: run.short_id,
      status: run.status,
      result: run.result,
      testPlanId: run.test_plan_id,
      planName: run.plan_name,
    },
    targets: [],
    skipped: [],
  };
  const consider = (target: NotificationTarget, notifyOn: NotifyOn) => {
    if (wanted(notifyOn, run.result)) resolved.targets.push(target);
    else resolved.skipped.push({ target: target.label, reason: `notifies on failure only and the run passed` });
  };

  const planRows = run.test_plan_id ? await planNotificationRows(db, run.test_plan_id) : [];
  for (const row of planRows.filter((r) => r.channel === 'email')) {
    consider({ channel: 'email', label: `email:${row.target}`, to: row.target }, row.notify_on);
  }

  const planSlack = planRows.find((r) => r.channel === 'slack');
  const override = parseOverride(run.notifications);
  if (override === 'invalid') {
    resolved.skipped.push({
      target: 'slack:(run override)',
      reason: 'the run’s notifications override is not readable; the plan’s channel is used',
    });
  }
  if (override && override !== 'invalid') {
    const seen = new Set<string>();
    for (const entry of override) {
      if (seen.has(entry.channel)) continue;
      seen.add(entry.channel);
      if (!planSlack) {
        resolved.skipped.push({
          target: `slack:${entry.channel}`,
          reason: 'the run overrides the chat channel but its plan has no chat webhook to post through',
        });
        continue;
      }
      consider(
        {
          channel: 'slack',
          label: `slack:${entry.channel}`,
          webhookUrl: planSlack.target,
          slackChannel: entry.channel,
          override: true,
        },
        entry.notifyOn ?? planSlack.notify_on,
      );
    }
  } else if (planSlack) {
    consider(
      {
        channel: 'slack',
        label: slackLabel(planSlack.slack_channel, planSlack.target),
        webhookUrl: planSlack.target,
        slackChannel: planSlack.slack_channel,
        override: false,
      },
      planSlack.notify_on,
    );
  }
  return resolved;
}

/** The message content of a run: counts and failures from its test cases. */
export async function loadRunReport(db: DB, run: ResolvedNotifications['run'], appUrl: string): Promise<RunReport> {
  const [row, tests] = await Promise.all([runReportRow(db, run.id), runReportTests(db, run.id)]);
  const isFailure = (t: (typeof tests)[number]) => t.result === 'FAILED' || (t.result === null && t.status === 'ERROR');
  // A quarantined test's failure did not fail the run: counted apart, not listed among the failures.
  const failedTests = tests
    .filter((t) => isFailure(t) && !t.quarantined)
    .map((t) => ({ name: t.name, error: t.error ?? t.result_title }));
  const quarantinedFailed = tests.filter((t) => isFailure(t) && t.quarantined).length;
  const passed = tests.filter((t) => t.result === 'PASSED').length;
  return {
    shortId: run.shortId,
    url: `${appUrl.replace(/\/$/, '')}/runs/${run.shortId}`,
    status: run.status,
    result: run.result,
    planName: run.planName,
    testCount: tests.length || row.test_count,
    passed,
    failed: failedTests.length,
    // Skipped by a failed dependency, cancelled, or never started: did not run to a verdict.
    skipped: tests.length - passed - failedTests.length - quarantinedFailed,
    failedTests,
    flaky: tests.filter((t) => t.flaky).length,
    quarantinedFailed,
    regressions: tests.reduce((n, t) => n + (t.changes ?? []).filter((c) => c.severity === 'regression').length, 0),
    branch: row.branch,
    commitHash: row.commit_hash,
  };
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * Sends every target of a finished run independently. Throws only when every target failed, so a retry of the
 * activity re-sends nothing that already arrived; a partial failure is reported, not retried.
 */
export async function sendRunNotifications(deps: NotifyDeps, runId: string): Promise<RunNotificationReport> {
  const resolved = await notificationTargets(deps.db, runId);
  if (!resolved) throw new RunNotFoundError(runId);
  const { run } = resolved;
  if (!terminal.includes(run.status))
    throw new RunNotFinishedError(`run ${run.shortId} has not finished (status ${run.status})`);
  const logger = deps.logger.child({ runId, runShortId: run.shortId });

  const report: RunNotificationReport = { sent: [], failed: [], skipped: [...resolved.skipped] };
  let targets = resolved.targets;
  if (!deps.email) {
    for (const t of targets.filter((t) => t.channel === 'email'))
      report.skipped.push({ target: t.label, reason: 'no SMTP server is configured' });
    targets = targets.filter((t) => t.channel !== 'email');
  }
  for (const s of report.skipped) logger.info('run notification skipped', { target: s.target, reason: s.reason });
  if (targets.length === 0) return report;

  const rendered = renderRunReport(await loadRunReport(deps.db, run, deps.appUrl));
  const email = deps.email;
  const deliver = async (target: NotificationTarget): Promise<void> => {
    if (target.channel === 'email') {
      await email!.send({ to: [target.to], subject: rendered.subject, text: rendered.text, html: rendered.html });
      return;
    }
    const protocol = URL.canParse(target.webhookUrl) ? new URL(target.webhookUrl).protocol : '';
    if (protocol !== 'https:' && protocol !== 'http:') throw new Error('the chat webhook is not an http(s) URL');
    if (deps.networkGuard) {
      const verdict = await deps.networkGuard.check(target.webhookUrl);
      if (!verdict.allowed) throw new Error(`the chat webhook address is refused: ${verdict.reason}`);
    }
    await postChatWebhook(
      target.webhookUrl,
      {
        text: rendered.slack.text,
        blocks: rendered.slack.blocks,
        ...(target.slackChannel && { channel: target.slackChannel }),
      },
      deps.fetchImpl,
    );
  };

  const outcomes = await Promise.allSettled(targets.map(deliver));
  outcomes.forEach((outcome, i) => {
    const target = targets[i]!;
    if (outcome.status === 'fulfilled') {
      report.sent.push(target.label);
      logger.info('run notification sent', { target: target.label });
    } else {
      report.failed.push({ target: target.label, error: message(outcome.reason) });
      logger.warn('run notification failed', { target: target.label, error: message(outcome.reason) });
    }
  });
  if (report.sent.length === 0) {
    throw new Error(
      `every notification of run ${run.shortId} failed: ${report.failed.map((f) => `${f.target}: ${f.error}`).join('; ')}`,
    );
  }
  return report;
}

/**
 * The worker's notification activity. A missing or unfinished run is a domain error (permanent once mapped by
 * activities/failures.ts); a delivery failure is a plain error, retried.
 */
export function createNotifyActivities(deps: NotifyDeps) {
  return {
    async sendRunNotifications(input: { runId: string }): Promise<RunNotificationReport> {
      return sendRunNotifications(deps, input.runId);
    },
  };
}
