// Pure rendering of a finished run into an email and a Slack-compatible chat message.

export interface RunReport {
  shortId: string;
  /** Dashboard address of the run. */
  url: string;
  status: string;
  result: string | null;
  /** Null for a run that is not a plan run. */
  planName: string | null;
  testCount: number;
  passed: number;
  failed: number;
  skipped: number;
  failedTests: { name: string; error: string | null }[];
  /** Passed only on a retry. */
  flaky?: number;
  /** Quarantined tests that did not pass: reported apart, they did not fail the run (not in `failed`). */
  quarantinedFailed?: number;
  /** Regression-severity changes the replays found (a lost accessible name, another role), over all tests. */
  regressions?: number;
  branch?: string | null;
  commitHash?: string | null;
}

export interface SlackBlock {
  type: string;
  [key: string]: unknown;
}

export interface RenderedRunReport {
  subject: string;
  text: string;
  html: string;
  slack: { text: string; blocks?: SlackBlock[] };
}

// A message lists the first failures only: a plan with 80 red tests still fits one screen (and Slack's limits).
const maxListedFailures = 10;
const maxErrorLength = 200;
// Slack rejects a section whose text exceeds 3,000 characters.
const maxSlackSection = 2900;

type Verdict = 'passed' | 'failed' | 'skipped' | 'errored' | 'cancelled';

function verdictOf(status: string, result: string | null): Verdict {
  if (status === 'CANCELLED') return 'cancelled';
  if (status === 'ERROR') return 'errored';
  if (result === 'PASSED') return 'passed';
  if (result === 'SKIPPED') return 'skipped';
  return 'failed';
}

const verdictWords: Record<Verdict, string> = {
  passed: 'passed',
  failed: 'failed',
  skipped: 'skipped (no test ran)',
  errored: 'ended with an error',
  cancelled: 'was cancelled',
};

const emoji: Record<Verdict, string> = {
  passed: ':white_check_mark:',
  failed: ':x:',
  skipped: ':fast_forward:',
  errored: ':warning:',
  cancelled: ':no_entry_sign:',
};

const oneLine = (s: string): string =>
  s
    .replace(/\p{Cc}+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();

function clip(s: string, max: number): string {
  const line = oneLine(s);
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function escapeHtml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

// Slack's mrkdwn treats only these three as control characters.
export function escapeSlack(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function renderRunReport(run: RunReport): RenderedRunReport {
  const verdict = verdictOf(run.status, run.result);
  const what = run.planName ? `Test plan "${oneLine(run.planName)}"` : 'Run';
  const headline = `${what} ${verdictWords[verdict]}`;
  const notes = [
    run.flaky ? `${run.flaky} flaky (passed on a retry)` : null,
    run.quarantinedFailed ? `${run.quarantinedFailed} quarantined failed (not counted)` : null,
    run.regressions ? `${run.regressions} regression ${run.regressions === 1 ? 'change' : 'changes'}` : null,
  ].filter((n): n is string => n !== null);
  const counts =
    `${run.testCount} ${run.testCount === 1 ? 'test' : 'tests'}: ${run.passed} passed, ${run.failed} failed, ${run.skipped} skipped` +
    (notes.length ? `; ${notes.join(', ')}` : '');
  const source = [
    run.branch ? `branch ${oneLine(run.branch)}` : null,
    run.commitHash ? `commit ${oneLine(run.commitHash).slice(0, 12)}` : null,
  ]
    .filter((s): s is string => s !== null)
    .join(', ');
  const listed = run.failedTests.slice(0, maxListedFailures).map((t) => ({
    name: clip(t.name, 100),
    error: t.error ? clip(t.error, maxErrorLength) : null,
  }));
  const unlisted = run.failedTests.length - listed.length;

  const subject = clip(
    `[Proctor] ${headline} (${run.shortId})${verdict === 'failed' ? `: ${run.failed} of ${run.testCount} failed` : ''}`,
    200,
  );

  const textLines = [`${headline}.`, '', `Run: ${run.shortId}`, counts];
  if (source) textLines.push(`Source: ${source}`);
  if (listed.length > 0) {
    textLines.push('', 'Failed tests:');
    for (const t of listed) textLines.push(`- ${t.name}${t.error ? `: ${t.error}` : ''}`);
    if (unlisted > 0) textLines.push(`- and ${unlisted} more`);
  }
  textLines.push('', `Details: ${run.url}`);
  const text = textLines.join('\n') + '\n';

  const htmlFailures =
    listed.length === 0
      ? ''
      : `<p><strong>Failed tests:</strong></p><ul>${listed
          .map(
            (t) =>
              `<li><strong>${escapeHtml(t.name)}</strong>${t.error ? `: <code>${escapeHtml(t.error)}</code>` : ''}</li>`,
          )
          .join('')}${unlisted > 0 ? `<li>and ${unlisted} more</li>` : ''}</ul>`;
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif">',
    `<p><strong>${escapeHtml(headline)}.</strong></p>`,
    `<p>Run <a href="${escapeHtml(run.url)}">${escapeHtml(run.shortId)}</a><br>${escapeHtml(counts)}`,
    source ? `<br>Source: ${escapeHtml(source)}` : '',
    '</p>',
    htmlFailures,
    `<p><a href="${escapeHtml(run.url)}">Open the run</a></p>`,
    '</body></html>',
  ].join('');

  const link = `<${run.url}|${escapeSlack(run.shortId)}>`;
  const slackText = `${emoji[verdict]} ${escapeSlack(headline)} (${link}): ${escapeSlack(counts)}`;
  const blocks: SlackBlock[] = [
    {
      type: 'section',
      text: { type: 'mrkdwn', text: `${emoji[verdict]} *${escapeSlack(headline)}* (${link})\n${escapeSlack(counts)}` },
    },
  ];
  if (source) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: escapeSlack(source) }] });
  if (listed.length > 0) {
    const lines = listed.map((t) => `• *${escapeSlack(t.name)}*${t.error ? `: ${escapeSlack(t.error)}` : ''}`);
    if (unlisted > 0) lines.push(`• and ${unlisted} more`);
    const section = `*Failed tests*\n${lines.join('\n')}`;
    blocks.push({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: section.length > maxSlackSection ? `${section.slice(0, maxSlackSection)}…` : section,
      },
    });
  }

  return { subject, text, html, slack: { text: slackText, blocks } };
}
