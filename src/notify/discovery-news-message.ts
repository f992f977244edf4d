// Pure rendering of a scheduled discovery's news (the page patterns and forms new since the previous completed
// discovery) into an email and a Slack-compatible chat message.
import type { DiscoveryNews } from '../domain/discovery-news.js';
import { escapeHtml, escapeSlack, type RenderedRunReport } from './message.js';

export interface DiscoveryNewsContext {
  applicationName: string;
  discoveryShortId: string;
  previousShortId: string;
  /** Where the whole diff is read: the API's diff route of the two discoveries (the dashboard has no page for it yet). */
  diffPath: string;
}

// A message lists the first items only: a redesigned application still fits one screen (and Slack's limits).
const maxListed = 20;

export function renderDiscoveryNews(news: DiscoveryNews, ctx: DiscoveryNewsContext): RenderedRunReport {
  const counts = [
    news.patterns.length > 0 ? `${news.patterns.length} new page pattern(s)` : null,
    news.forms.length > 0 ? `${news.forms.length} new form(s)` : null,
  ].filter((x): x is string => x !== null);
  const subject = `Discovery of ${ctx.applicationName}: ${counts.join(', ')}`;
  const items = [
    ...news.patterns.map((p) => `Page ${p}`),
    ...news.forms.map((f) => `Form "${f.name}" on ${f.pattern}`),
  ];
  const listed = items.slice(0, maxListed);
  const rest = items.length > maxListed ? `and ${items.length - maxListed} more` : null;
  const intro = `Discovery ${ctx.discoveryShortId} found what discovery ${ctx.previousShortId} did not have:`;
  const where = `The whole diff: GET ${ctx.diffPath}`;
  const text = [subject, '', intro, ...listed.map((i) => `- ${i}`), ...(rest ? [rest] : []), '', where].join('\n');
  const html =
    `<p>${escapeHtml(intro)}</p><ul>${listed.map((i) => `<li>${escapeHtml(i)}</li>`).join('')}</ul>` +
    `${rest ? `<p>${escapeHtml(rest)}</p>` : ''}<p>${escapeHtml(where)}</p>`;
  const slackText = [
    `*${escapeSlack(subject)}*`,
    escapeSlack(intro),
    ...listed.map((i) => `• ${escapeSlack(i)}`),
    ...(rest ? [rest] : []),
    escapeSlack(where),
  ].join('\n');
  return { subject, text, html, slack: { text: slackText } };
}
