// The rules of a change review that are decided by code, not by the model: what kind of change can be checked in
// a browser, which goal is a duplicate of which, which verdict the results allow, and the reply's text (the
// results table is built here from the run, never written by the model). Pure: the changeReview workflow uses them.
import type { ReviewVerdict } from './git.js';
import { hasRegression, type StepChange } from './verdicts.js';
import { isBlocking, type QualityDelta, type QualityFinding } from './quality.js';

/**
 * Where a change review is, in order: `queued` until the workflow starts it, then the steps of reviewChange
 * (workflows/change-review-steps.ts) and `done` once the verdict is written (or the review ended without one).
 */
export type ChangeReviewPhase = 'queued' | 'loading' | 'selecting' | 'creating-tests' | 'running' | 'verdict' | 'done';

export type ChangedPathKind = 'docs' | 'ci' | 'config' | 'code';

/** What a path is: documentation, CI definition, tooling configuration, or code that may change the application. */
export function changedPathKind(path: string): ChangedPathKind {
  const p = path.toLowerCase();
  const name = p.split('/').at(-1)!;
  if (
    /\.(md|mdx|rst|adoc|txt)$/.test(name) ||
    /^(license|licence|authors|codeowners|notice)(\.|$)/.test(name) ||
    /(^|\/)docs?\//.test(p)
  )
    return 'docs';
  if (
    /(^|\/)(\.github|\.gitlab|\.circleci|\.buildkite)\//.test(p) ||
    /^(\.gitlab-ci\.ya?ml|jenkinsfile|azure-pipelines\.ya?ml|\.travis\.ya?ml|bitbucket-pipelines\.yml)$/.test(name)
  )
    return 'ci';
  if (
    /^\.(editorconfig|gitignore|gitattributes|nvmrc|node-version|npmrc|prettierignore|eslintignore|dockerignore)$/.test(
      name,
    ) ||
    /^(\.eslintrc|\.prettierrc|\.stylelintrc|\.markdownlint|renovate|\.renovaterc|commitlint\.config|lint-staged\.config|tsconfig)[^/]*$/.test(
      name,
    ) ||
    /^(eslint|prettier|vitest|jest)\.config\.[a-z]+$/.test(name)
  ) {
    return 'config';
  }
  return 'code';
}

export interface ChangeClassification {
  /** false: nothing a browser test could check changed (docs, CI or tooling configuration only, or no files). */
  verifiable: boolean;
  counts: Record<ChangedPathKind, number>;
  /** Why it cannot be verified, in words for the reply. */
  reason?: string;
}

export function classifyChange(paths: string[]): ChangeClassification {
  const counts: Record<ChangedPathKind, number> = { docs: 0, ci: 0, config: 0, code: 0 };
  for (const path of paths) counts[changedPathKind(path)]++;
  if (paths.length === 0) return { verifiable: false, counts, reason: 'the change contains no file changes' };
  if (counts.code > 0) return { verifiable: true, counts };
  const kinds = (['docs', 'ci', 'config'] as const)
    .filter((k) => counts[k] > 0)
    .map((k) => ({ docs: 'documentation', ci: 'CI pipeline', config: 'tooling configuration' })[k]);
  return { verifiable: false, counts, reason: `the change only touches ${kinds.join(' and ')} files` };
}

/** A goal reduced to its words, so "Check out the cart!" and "check out the  cart" are one goal. */
export const normalizeGoal = (goal: string): string =>
  goal
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/** Drops goals that repeat an earlier one or an existing test's goal (after normalizing); keeps the order. */
export function dedupeGoals<T extends { goal: string }>(goals: T[], existingGoals: string[] = []): T[] {
  const seen = new Set(existingGoals.map(normalizeGoal));
  return goals.filter((g) => {
    const key = normalizeGoal(g.goal);
    if (!key || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export type ReviewTestResult = 'PASSED' | 'FAILED' | 'ERROR' | 'SKIPPED' | 'NOT_RUN';

/** What a review knows of one test: its result, and the facts the replay and the burn-in reported beside it. */
export interface ReviewedTest {
  result: ReviewTestResult;
  /** How the elements its steps used differ from the recorded ones (run_test_cases.changes). */
  changes?: StepChange[];
  /** A quarantined test runs and reports, but fails nothing and verifies nothing. */
  quarantined?: boolean;
  /** Parts of its goal its burn-in said it could not verify: a pass does not prove them. */
  notCovered?: string[];
  /** Its quality signals against the baseline (its latest run on the base environment); absent without one. */
  quality?: QualityDelta & { newCount: number; fixedCount: number };
}

/** A new uncaught exception or serious/critical a11y violation: as much a regression as a changed control. */
const blocksChange = (t: ReviewedTest) => (t.quality?.new ?? []).some(isBlocking);
const findingText = (f: QualityFinding) => `${f.kind} (${f.severity}) on ${f.page}: ${f.title}`;

const allVerdicts: ReviewVerdict[] = ['Approved', 'Changes Requested', 'Comment'];

/**
 * The verdicts the results allow, whatever the model proposes. Quarantined tests are left out. A FAILED test, or
 * a test that reports a regression (a control lost its accessible name, changed its role: it may still have
 * PASSED), allows only `Changes Requested`. `Approved` needs at least one PASSED test and nothing ERROR or NOT_RUN
 * (an error, a new test that could not be generated on the preview, or nothing run at all verified too little).
 */
export function allowedVerdicts(tests: ReviewedTest[]): ReviewVerdict[] {
  const counted = tests.filter((t) => !t.quarantined);
  if (counted.some((t) => t.result === 'FAILED' || hasRegression(t.changes) || blocksChange(t)))
    return ['Changes Requested'];
  const verified =
    counted.some((t) => t.result === 'PASSED') && !counted.some((t) => t.result === 'ERROR' || t.result === 'NOT_RUN');
  return verified ? allVerdicts : allVerdicts.filter((v) => v !== 'Approved');
}

/** The model's verdict when the results allow it; otherwise the one they force, or at most a `Comment`. */
export function enforceVerdict(proposed: ReviewVerdict, tests: ReviewedTest[]): ReviewVerdict {
  const allowed = allowedVerdicts(tests);
  if (allowed.includes(proposed)) return proposed;
  return allowed.length === 1 ? allowed[0]! : 'Comment';
}

/** The verdict from the results alone: when the model could not write one. */
export function verdictFromResults(tests: ReviewedTest[]): ReviewVerdict {
  return enforceVerdict('Approved', tests);
}

/** Why the results overruled the model's verdict, for the reply. */
export function overruledNote(proposed: ReviewVerdict, tests: ReviewedTest[]): string {
  const counted = tests.filter((t) => !t.quarantined);
  const why = counted.some((t) => t.result === 'FAILED')
    ? 'a failed test means changes are requested'
    : counted.some((t) => hasRegression(t.changes))
      ? 'a regression means changes are requested'
      : counted.some(blocksChange)
        ? 'a new uncaught exception or serious accessibility violation means changes are requested'
        : 'too little was verified to approve';
  return `The model proposed "${proposed}"; ${why}.`;
}

const regressions = (t: ReviewedTest) =>
  (t.changes ?? []).filter((c) => c.severity === 'regression').map((c) => c.summary);
const cosmetic = (t: ReviewedTest) => (t.changes ?? []).filter((c) => c.severity === 'cosmetic').map((c) => c.summary);

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
}

const cell = (text: string) =>
  text
    .replace(/\|/g, '\\|')
    .replace(/\s*\n\s*/g, ' ')
    .trim();

/** A test's facts beside its result, in words: its regressions, its cosmetic changes as notes, what it does not cover. */
export function factNotes(t: ReviewedTest): string[] {
  return [
    ...regressions(t).map((s) => `regression: ${s}`),
    ...cosmetic(t).map((s) => `note: ${s}`),
    ...(t.notCovered?.length ? [`not covered: ${t.notCovered.join('; ')}`] : []),
    ...(t.quality?.new ?? []).map((f) => `new issue: ${findingText(f)}`),
    ...(t.quality?.fixed ?? []).map((f) => `fixed: ${findingText(f)}`),
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

/** The reply a user (and a pull/merge request) reads: verdict, summary, results table, evaluation details. */
export function reviewBody(input: {
  verdict: ReviewVerdict;
  summary: string;
  rows: ReviewTableRow[];
  details: string;
  runUrl?: string;
  note?: string;
}): string {
  return [
    `**Verdict: ${input.verdict}**`,
    input.summary.trim(),
    ...(input.note ? [`_${input.note}_`] : []),
    `### Results${input.runUrl ? ` ([run](${input.runUrl}))` : ''}`,
    resultsTable(input.rows),
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
export function nothingRunReply(reasoning: string): { verdict: ReviewVerdict; summary: string; body: string } {
  const summary = `No existing test covers this change and no new test was needed, so nothing was run.${reasoning ? ` ${reasoning}` : ''}`;
  return {
    verdict: 'Comment',
    summary,
    body: reviewBody({ verdict: 'Comment', summary, rows: [], details: reasoning }),
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
  });
  return { verdict, summary, body };
}
