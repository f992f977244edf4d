// The news of a scheduled discovery (issue 34, item 5): what it found that the application's previous completed
// discovery had not (page patterns, forms), sent to its schedule's targets, each independently, as run
// notifications are (src/notify/run-notifications.ts). The first completed discovery of an application has nothing
// to compare with and sends nothing.
import { findTickDiscoverySchedule } from '../db/queries/discovery-schedules.js';
import { getDiscovery, previousCompletedDiscovery } from '../db/queries/discoveries.js';
import { hasNews, newsOf, readNotify } from '../domain/discovery-news.js';
import { NotFoundError } from '../domain/errors.js';
import { postChatWebhook } from '../notify/chat.js';
import { renderDiscoveryNews } from '../notify/discovery-news-message.js';
import type { NotifyDeps } from '../notify/run-notifications.js';
import type { DiscoveryNewsReport } from '../../workflows/scheduled-discovery-contract.js';
import { getDiscoveryDiff } from './discovery-map.js';

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

const hostOf = (url: string) => (URL.canParse(url) ? new URL(url).host : '(invalid webhook URL)');

/** Finds the news of a completed scheduled discovery and sends it; throws only when every target failed. */
export async function sendDiscoveryNews(
  deps: NotifyDeps,
  input: { discoveryId: string; scheduleId: string },
): Promise<DiscoveryNewsReport> {
  const row = await getDiscovery(deps.db, input.discoveryId);
  if (!row) throw new NotFoundError(`Discovery ${input.discoveryId}`);
  // One row, however many discoveries the schedule has run (the list of the 200 newest was read to find it).
  const previous = await previousCompletedDiscovery(deps.db, row);
  const report: DiscoveryNewsReport = {
    previousShortId: previous?.short_id ?? null,
    newPatterns: 0,
    newForms: 0,
    sent: [],
    failed: [],
    skipped: [],
  };
  if (!previous) return report;
  const diff = await getDiscoveryDiff(deps, row.project_id, row.short_id, previous.short_id);
  const news = newsOf(diff);
  report.newPatterns = news.patterns.length;
  report.newForms = news.forms.length;
  if (!hasNews(news)) return report;

  const schedule = await findTickDiscoverySchedule(deps.db, {
    scheduleId: input.scheduleId,
    projectId: row.project_id,
  });
  const notify = readNotify(schedule?.notify);
  const rendered = renderDiscoveryNews(news, {
    applicationName: row.application_short_id,
    discoveryShortId: row.short_id,
    previousShortId: previous.short_id,
    diffPath: `/v1/discoveries/${row.short_id}/diff?against=${previous.short_id}`,
  });
  const targets: { label: string; deliver: () => Promise<void> }[] = [];
  for (const to of notify.emails) {
    if (!deps.email) report.skipped.push({ target: `email:${to}`, reason: 'no SMTP server is configured' });
    else {
      const email = deps.email;
      targets.push({
        label: `email:${to}`,
        deliver: () => email.send({ to: [to], subject: rendered.subject, text: rendered.text, html: rendered.html }),
      });
    }
  }
  const slack = notify.slack;
  if (slack)
    targets.push({
      label: `slack:${slack.channel ?? hostOf(slack.webhookUrl)}`,
      deliver: async () => {
        const protocol = URL.canParse(slack.webhookUrl) ? new URL(slack.webhookUrl).protocol : '';
        if (protocol !== 'https:' && protocol !== 'http:') throw new Error('the chat webhook is not an http(s) URL');
        const verdict = await deps.networkGuard?.check(slack.webhookUrl);
        if (verdict && !verdict.allowed) throw new Error(`the chat webhook address is refused: ${verdict.reason}`);
        await postChatWebhook(
          slack.webhookUrl,
          { text: rendered.slack.text, ...(slack.channel && { channel: slack.channel }) },
          deps.fetchImpl,
        );
      },
    });
  const outcomes = await Promise.allSettled(targets.map((t) => t.deliver()));
  outcomes.forEach((outcome, i) => {
    const { label } = targets[i]!;
    if (outcome.status === 'fulfilled') report.sent.push(label);
    else report.failed.push({ target: label, error: message(outcome.reason) });
  });
  const logger = deps.logger.child({ discoveryShortId: row.short_id });
  logger.info('discovery news', { ...report });
  if (targets.length > 0 && report.sent.length === 0)
    throw new Error(
      `every notification of discovery ${row.short_id} failed: ${report.failed.map((f) => `${f.target}: ${f.error}`).join('; ')}`,
    );
  return report;
}
