// How a change review reads a test's run when visual checks differed (issue 37, item 4). A visual difference is its
// own kind of finding, a "visual change": the page may have been restyled on purpose, so a person has to look; it
// is not a broken test. A replay goes on after a visual difference (src/browser/replay/replay.ts), so a run row says
// both: its result and failure kind (the first failure that was not visual, else the first visual one) and every
// visual difference in its evidence. Pure: the review's results activity and the unit tests use it.
import type { FailureKind, VisualDifference } from './verdicts.js';

/** What a review says of one test: a run's results, and VISUAL_CHANGE for a test whose only failures are visual. */
export type ReviewTestResult = 'PASSED' | 'FAILED' | 'VISUAL_CHANGE' | 'ERROR' | 'SKIPPED' | 'NOT_RUN';

/** One visual change as a review lists it: the step, what it looked at, how much differs, and the images. */
export interface VisualChangeFinding {
  /** 0-based. */
  stepIndex: number;
  /** The step in words (its description). */
  step: string;
  /** The element's locator, or `the page`. */
  target: string;
  /** The share of pixels that differ, 0 to 1. */
  ratio: number;
  /** Blob keys of the images (the API links them presigned); absent when not kept. */
  baselineKey?: string;
  actualKey?: string;
  diffKey?: string;
  /** The dashboard's links to the images (a signed-in person of the project), for the reply and the MR note. */
  baselineUrl?: string;
  actualUrl?: string;
  diffUrl?: string;
}

/** What the review reads of a run row. */
export interface RunOutcome {
  result: 'PASSED' | 'FAILED' | 'SKIPPED' | null;
  status: string;
  failureKind: FailureKind | null;
  /** 0-based step the test failed at (the first failure that was not a visual difference, else the first one). */
  failedStepIndex: number | null;
  visualChanges: readonly VisualDifference[];
}

/**
 * The review's result for a test: a failure that is only visual differences is a VISUAL_CHANGE (never FAILED, never PASSED);
 * any other failure stays FAILED whatever visual differences it also had; no result is ERROR (or SKIPPED for a
 * failed dependency).
 */
export function reviewResultOf(run: RunOutcome): ReviewTestResult {
  if (run.result === null) return run.status === 'SKIPPED' ? 'SKIPPED' : 'ERROR';
  // It failed at a difference: nothing else failed. (A visual check that could not take its screenshot, a timeout,
  // is of the kind `visual` too but found no difference: it failed, as any step that could not run.)
  if (run.result === 'FAILED' && run.visualChanges.some((v) => v.stepIndex === run.failedStepIndex))
    return 'VISUAL_CHANGE';
  // A row that somehow passed with differences recorded is not a pass that hides them.
  if (run.result === 'PASSED' && run.visualChanges.length > 0) return 'VISUAL_CHANGE';
  return run.result;
}

/** A share of pixels for a reader: `12%`, `0.31%`. */
export const percent = (ratio: number): string => `${Number((ratio * 100).toPrecision(2))}%`;

/** A visual change in one line of markdown: the step, what differs, and links to the images. */
export function visualChangeLine(testName: string, v: VisualChangeFinding): string {
  const links = (
    [
      ['diff', v.diffUrl],
      ['new image', v.actualUrl],
      ['baseline', v.baselineUrl],
    ] as const
  )
    .filter(([, url]) => url)
    .map(([label, url]) => `[${label}](${url})`);
  const where = v.target === 'the page' ? 'the page' : `\`${v.target.replace(/`/g, "'")}\``;
  return `- "${testName}", step ${v.stepIndex + 1} "${v.step}": ${where} looks different, ${percent(v.ratio)} of its pixels differ${links.length ? ` (${links.join(' · ')})` : ''}`;
}

/** Whether a test shows a visual change a person has to look at. */
export const hasVisualChange = (t: { result: string; visualChanges?: readonly unknown[] }): boolean =>
  t.result === 'VISUAL_CHANGE' || (t.visualChanges?.length ?? 0) > 0;
