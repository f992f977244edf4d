// The reply of a change review, built by code from the results (never written by the model): the facts the
// summary must state, the results table, and the whole body with its verdict. The verdict itself is decided by
// the rules in change-review.ts; this file only words it. Pure: the changeReview workflow uses it.
import type { ReviewVerdict } from './git.js';
import type { QualityFinding } from './quality.js';
import { enforceVerdict, overruledNote, verdictFromResults, type ReviewedTest } from './change-review.js';
import { percent, visualChangeLine } from './review-visual.js';

const findingText = (f: QualityFinding) => `${f.kind} (${f.severity}) on ${f.page}: ${f.title}`;

const regressions = (t: Pick<ReviewedTest, 'changes'>) =>
  (t.changes ?? []).filter((c) => c.severity === 'regression').map((c) => c.summary);

const cosmetic = (t: Pick<ReviewedTest, 'changes'>) =>
  (t.changes ?? []).filter((c) => c.severity === 'cosmetic').map((c) => c.summary);

/**
 * What the summary must say whatever the model wrote, in plain words: each regression a counted test reported, and
 * each part of a goal no test verified. Empty when there is nothing to add.
 */
export function reviewFacts(tests: (ReviewedTest & { name: string })[]): string[] {
  const counted = tests.filter((t) => !t.quarantined);
  return [
    ...counted.flatMap((t) => regressions(t).map((s) => `Regression in "${t.name}": ${s}.`)),
    ...counted
      .filter((t) => t.notCovered?.length)
      .map((t) => `Not covered by "${t.name}" (its burn-in could not verify it): ${t.notCovered!.join('; ')}.`),
    ...counted.flatMap((t) => (t.quality?.new ?? []).map((f) => `New issue in "${t.name}": ${findingText(f)}.`)),
    ...counted.flatMap((t) => (t.quality?.fixed ?? []).map((f) => `Fixed in "${t.name}": ${findingText(f)}.`)),
    ...counted.flatMap((t) =>
      (t.visualChanges ?? []).map(
        (v) => `Visual change in "${t.name}" at step ${v.stepIndex + 1}: ${percent(v.ratio)} of the pixels differ.`,
      ),
    ),
    ...healthLine(counted),
  ];
}

/** The health counts over the tests compared with a baseline: new, fixed and unchanged quality issues. */
function healthLine(tests: ReviewedTest[]): string[] {
  const compared = tests.filter((t) => t.quality);
  if (compared.length === 0) return [];
  const sum = (f: (q: NonNullable<ReviewedTest['quality']>) => number) =>
    compared.reduce((n, t) => n + f(t.quality!), 0);
  return [
    `Health against the base environment: ${sum((q) => q.newCount)} new, ${sum((q) => q.fixedCount)} fixed, ${sum((q) => q.unchanged)} unchanged quality issues.`,
  ];
}

/** The model's summary with the facts it left out appended (a fact it already quotes is not repeated). */
export function summaryWithFacts(summary: string, tests: (ReviewedTest & { name: string })[]): string {
  const missing = reviewFacts(tests).filter((fact) => !summary.includes(fact));
  return [summary.trim(), ...missing].filter(Boolean).join(' ');
}

export interface ReviewTableRow extends ReviewedTest {
  name: string;
  origin: 'new' | 'existing';
  detail?: string;
  url: string;
  /** The test case's dashboard page (where a proposed baseline is accepted). */
  testUrl?: string;
}

const cell = (text: string) =>
  text
    .replace(/\|/g, '\\|')
    .replace(/\s*\n\s*/g, ' ')
    .trim();

/** A test's facts beside its result, in words: its regressions, its cosmetic changes as notes, what it does not cover. */
export function factNotes(
  t: Omit<ReviewedTest, 'visualChanges'> & { visualChanges?: readonly { stepIndex: number; ratio: number }[] },
): string[] {
  return [
    ...regressions(t).map((s) => `regression: ${s}`),
    ...cosmetic(t).map((s) => `note: ${s}`),
    ...(t.notCovered?.length ? [`not covered: ${t.notCovered.join('; ')}`] : []),
    ...(t.quality?.new ?? []).map((f) => `new issue: ${findingText(f)}`),
    ...(t.quality?.fixed ?? []).map((f) => `fixed: ${findingText(f)}`),
    ...(t.visualChanges ?? []).map((v) => `visual change at step ${v.stepIndex + 1} (${percent(v.ratio)} differ)`),
  ];
}

/**
 * The visual changes of the counted tests, apart from the results table: each with its step, what it looked at,
 * how much differs and links to its diff, new image and baseline; and how to accept the new look. None: no section.
 */
export function visualChangesSection(rows: ReviewTableRow[]): string[] {
  const changed = rows.filter((r) => !r.quarantined && r.visualChanges?.length);
  if (changed.length === 0) return [];
  return [
    '### Visual changes',
    [
      ...changed.flatMap((r) => r.visualChanges!.map((v) => visualChangeLine(r.name, v))),
      '',
      '_A person has to look: if the new look is intended, accept the proposed baseline on the test case ' +
        `(${changed.map((r) => `[${cell(r.name)}](${r.testUrl ?? r.url})`).join(', ')}); the next review compares with it._`,
    ].join('\n'),
  ];
}

function table(rows: ReviewTableRow[]): string {
  const lines = rows.map((r) => {
    // A failure's step and reason first, then the facts.
    const notes = [...(r.detail ? [cell(r.detail).slice(0, 300)] : []), ...factNotes(r).map(cell)];
    return `| ${cell(r.name)} | ${r.origin} | ${r.result}${notes.length ? `: ${notes.join('; ')}` : ''} | [open](${r.url}) |`;
  });
  return ['| Test | New / existing | Result | Link |', '| --- | --- | --- | --- |', ...lines].join('\n');
}

/**
 * The results table (markdown): test, new/existing, result, link; under the result a failure's step and reason,
 * regressions, cosmetic changes as notes, and what is not covered. Quarantined tests are shown apart.
 */
export function resultsTable(rows: ReviewTableRow[]): string {
  if (rows.length === 0) return '_No tests were run._';
  const counted = rows.filter((r) => !r.quarantined);
  const quarantined = rows.filter((r) => r.quarantined);
  return [
    ...(counted.length ? [table(counted)] : ['_Every test run is quarantined._']),
    ...(quarantined.length
      ? [`**Quarantined** (they ran, but fail nothing and verify nothing):\n\n${table(quarantined)}`]
      : []),
  ].join('\n\n');
}

/**
 * Pages of an application's coverage map (its latest completed discovery) that the change touches and no enabled
 * test visits: its route files render them, or the review's own run went there.
 */
export interface UncoveredPages {
  applicationName: string;
  discoveryShortId: string;
  patterns: string[];
}

const listedPages = 10;

/**
 * The line a reply says the uncovered pages the change touches in, one per application; none when it touches none.
 * It informs: the verdict stays the results' (a page no test covers was not tested, not found broken).
 */
export function uncoveredPagesLines(uncovered: readonly UncoveredPages[]): string[] {
  const touched = uncovered.filter((u) => u.patterns.length > 0);
  return touched.map((u) => {
    const shown = u.patterns.slice(0, listedPages).map((p) => `\`${p}\``);
    const more = u.patterns.length - shown.length;
    const of = touched.length > 1 ? ` of ${u.applicationName}` : '';
    return `Touches uncovered pages${of}: ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''} (no enabled test visits them, by the coverage map of discovery ${u.discoveryShortId}).`;
  });
}

/** The reply a user (and a pull/merge request) reads: verdict, summary, results table, evaluation details. */
export function reviewBody(input: {
  verdict: ReviewVerdict;
  summary: string;
  rows: ReviewTableRow[];
  details: string;
  runUrl?: string;
  note?: string;
  uncovered?: readonly UncoveredPages[];
}): string {
  return [
    `**Verdict: ${input.verdict}**`,
    input.summary.trim(),
    ...(input.note ? [`_${input.note}_`] : []),
    ...uncoveredPagesLines(input.uncovered ?? []),
    `### Results${input.runUrl ? ` ([run](${input.runUrl}))` : ''}`,
    resultsTable(input.rows),
    ...visualChangesSection(input.rows),
    '### Evaluation details',
    input.details.trim() || '-',
  ].join('\n\n');
}

/** The reply to a change that no browser test can check: a `Comment`, no tests run. */
export function unverifiableBody(reason: string): { summary: string; body: string } {
  const summary = `Unable to verify this change in a browser: ${reason}. No tests were selected or run.`;
  return { summary, body: `**Verdict: Comment**\n\n${summary}` };
}

export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The progress line that names the existing tests the model chose for the change. */
export function chosenTestsLine(existing: { name: string }[]): string {
  return existing.length
    ? `Selected ${plural(existing.length, 'existing test')}: ${existing.map((t) => `"${t.name}"`).join(', ')}.`
    : 'No existing test covers the change.';
}

/** The reply when nothing ran: no existing test covers the change and none was needed. */
export function nothingRunReply(
  reasoning: string,
  uncovered: readonly UncoveredPages[] = [],
): { verdict: ReviewVerdict; summary: string; body: string } {
  const summary = `No existing test covers this change and no new test was needed, so nothing was run.${reasoning ? ` ${reasoning}` : ''}`;
  return {
    verdict: 'Comment',
    summary,
    body: reviewBody({ verdict: 'Comment', summary, rows: [], details: reasoning, uncovered }),
  };
}

/**
 * The verdict, summary and reply of a review that ran tests. The results (with the regressions the replay reported,
 * leaving quarantined tests out) decide what the verdict may be, whatever the model said; the summary says each
 * regression and what no test covered, in plain words. No draft: the model wrote none, or could not (`modelError`).
 */
export function reviewReply(input: {
  tests: ReviewTableRow[];
  draft: { verdict: ReviewVerdict; summary: string; evaluationDetails: string } | undefined;
  modelError: string | undefined;
  reasoning: string;
  runUrl: string | undefined;
  uncovered?: readonly UncoveredPages[];
}): { verdict: ReviewVerdict; summary: string; body: string } {
  const { tests, draft } = input;
  let note =
    input.modelError === undefined
      ? undefined
      : `The model could not write the verdict (${input.modelError}); it was decided from the results.`;
  const verdict = enforceVerdict(draft?.verdict ?? verdictFromResults(tests), tests);
  if (draft && verdict !== draft.verdict) note = overruledNote(draft.verdict, tests);
  const summary = summaryWithFacts(
    draft?.summary.trim() ||
      `${plural(tests.filter((t) => t.result === 'PASSED').length, 'test')} passed of ${tests.length}.`,
    tests,
  );
  const body = reviewBody({
    verdict,
    summary,
    rows: tests,
    details: draft?.evaluationDetails ?? input.reasoning,
    runUrl: input.runUrl,
    note,
    uncovered: input.uncovered,
  });
  return { verdict, summary, body };
}
