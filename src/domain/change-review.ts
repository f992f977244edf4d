// The rules of a change review that are decided by code, not by the model: what kind of change can be checked in
// a browser, which goal is a duplicate of which, which verdict the results allow, and the reply's text (the
// results table is built here from the run, never written by the model). Pure: the changeReview workflow uses them.
import type { ReviewVerdict } from '../git/provider.js';

export type ChangedPathKind = 'docs' | 'ci' | 'config' | 'code';

/** What a path is: documentation, CI definition, tooling configuration, or code that may change the application. */
export function changedPathKind(path: string): ChangedPathKind {
  const p = path.toLowerCase();
  const name = p.split('/').at(-1)!;
  if (/\.(md|mdx|rst|adoc|txt)$/.test(name) || /^(license|licence|authors|codeowners|notice)(\.|$)/.test(name) || /(^|\/)docs?\//.test(p)) return 'docs';
  if (/(^|\/)(\.github|\.gitlab|\.circleci|\.buildkite)\//.test(p) || /^(\.gitlab-ci\.ya?ml|jenkinsfile|azure-pipelines\.ya?ml|\.travis\.ya?ml|bitbucket-pipelines\.yml)$/.test(name)) return 'ci';
  if (
    /^\.(editorconfig|gitignore|gitattributes|nvmrc|node-version|npmrc|prettierignore|eslintignore|dockerignore)$/.test(name) ||
    /^(\.eslintrc|\.prettierrc|\.stylelintrc|\.markdownlint|renovate|\.renovaterc|commitlint\.config|lint-staged\.config|tsconfig)[^/]*$/.test(name) ||
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
  const kinds = (['docs', 'ci', 'config'] as const).filter((k) => counts[k] > 0).map((k) => ({ docs: 'documentation', ci: 'CI pipeline', config: 'tooling configuration' })[k]);
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

/**
 * The verdict the results allow, whatever the model proposed: a FAILED test always means `Changes Requested`;
 * `Approved` needs at least one PASSED test and nothing FAILED, ERROR or NOT_RUN (an error, a new test that could
 * not be generated on the preview, or nothing run at all verified too little: at most a `Comment`). Otherwise the
 * model's verdict stands.
 */
export function enforceVerdict(proposed: ReviewVerdict, results: ReviewTestResult[]): ReviewVerdict {
  if (results.includes('FAILED')) return 'Changes Requested';
  if (proposed === 'Approved' && (!results.includes('PASSED') || results.includes('ERROR') || results.includes('NOT_RUN'))) return 'Comment';
  return proposed;
}

/** The verdict from the results alone: when the model could not write one. */
export function verdictFromResults(results: ReviewTestResult[]): ReviewVerdict {
  return enforceVerdict('Approved', results);
}

export interface ReviewTableRow {
  name: string;
  origin: 'new' | 'existing';
  result: ReviewTestResult;
  detail?: string;
  url: string;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ').trim();

/** The results table (markdown): test, new/existing, result, link; a failure's step and reason under the result. */
export function resultsTable(rows: ReviewTableRow[]): string {
  if (rows.length === 0) return '_No tests were run._';
  const lines = rows.map((r) => `| ${cell(r.name)} | ${r.origin} | ${r.result}${r.detail ? `: ${cell(r.detail).slice(0, 300)}` : ''} | [open](${r.url}) |`);
  return ['| Test | New / existing | Result | Link |', '| --- | --- | --- | --- |', ...lines].join('\n');
}

/** The reply a user (and a pull/merge request) reads: verdict, summary, results table, evaluation details. */
export function reviewBody(input: { verdict: ReviewVerdict; summary: string; rows: ReviewTableRow[]; details: string; runUrl?: string; note?: string }): string {
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
