// The rules of a change review that are decided by code, not by the model: what kind of change can be checked in
// a browser, which goal is a duplicate of which, and which verdict the results allow. The reply's text (the results
// table is built from the run, never written by the model) is change-review-reply.ts. Pure: the changeReview
// workflow uses them.
import type { ReviewVerdict } from './git.js';
import { hasRegression, type StepChange } from './verdicts.js';
import { isBlocking, type QualityDelta } from './quality.js';
import { hasVisualChange, type ReviewTestResult, type VisualChangeFinding } from './review-visual.js';

export type { ReviewTestResult } from './review-visual.js';

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
  /** Its visual checks that differed from their baselines (its result is VISUAL_CHANGE when nothing else failed). */
  visualChanges?: VisualChangeFinding[];
}

/** A new uncaught exception or serious/critical a11y violation: as much a regression as a changed control. */
const blocksChange = (t: ReviewedTest) => (t.quality?.new ?? []).some(isBlocking);

const allVerdicts: ReviewVerdict[] = ['Approved', 'Changes Requested', 'Comment'];

/**
 * The verdicts the results allow, whatever the model proposes. Quarantined tests are left out. A FAILED test, or
 * a test that reports a regression (a control lost its accessible name, changed its role: it may still have
 * PASSED), allows only `Changes Requested`. So does a visual change: the contract has no "needs review" verdict,
 * and a restyled page must not be approved before a person has looked (accepting its new image as the baseline,
 * or fixing the change, lets the next review approve). `Approved` needs at least one PASSED test and nothing
 * ERROR or NOT_RUN (an error, a new test that could not be generated on the preview, or nothing run at all
 * verified too little).
 */
export function allowedVerdicts(tests: ReviewedTest[]): ReviewVerdict[] {
  const counted = tests.filter((t) => !t.quarantined);
  if (counted.some((t) => t.result === 'FAILED' || hasRegression(t.changes) || blocksChange(t) || hasVisualChange(t)))
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
        : counted.some(hasVisualChange)
          ? 'a visual change needs a person to look at it, so changes are requested until its new image is accepted as the baseline'
          : 'too little was verified to approve';
  return `The model proposed "${proposed}"; ${why}.`;
}
