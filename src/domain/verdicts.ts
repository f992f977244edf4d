// What a replay found out beyond PASSED/FAILED: how each touched element compares with the one recorded, why a
// failed test failed, and the evidence for it. Pure data and rules, shared by replay, runs, reviews and the API.

/** Why a failed or errored test failed, so a reader can tell a real bug from a flaky test or a down environment. */
export const failureKinds = [
  /**
   * The element was there, but the page showed something else than the recorded expectation, or did not let the
   * step do what it recorded (a control disabled or covered at that moment).
   */
  'assertion',
  /** No element matches the step (by any recorded locator, nor a heal). */
  'element-missing',
  /** The element is there but is no longer what was recorded (another role, a lost or changed name). */
  'changed-ui',
  /** The application did not answer: unreachable, DNS, TLS, or a 5xx on the main document. */
  'environment',
  /** The test itself cannot run: no steps, an unparsable locator, a config it references is missing. */
  'test-definition',
  /** Not the application's fault: a browser crash or a Proctor fault. */
  'infrastructure',
  /** The page (or an element) no longer looks like its baseline: more pixels differ than the step allows. */
  'visual',
] as const;
export type FailureKind = (typeof failureKinds)[number];

/** What backs a failure's kind: what the page showed and where. */
export interface FailureEvidence {
  /** The URL the page was on when the step failed. */
  url?: string;
  /** A short redacted excerpt of what the page showed. */
  pageExcerpt?: string;
  /** The HTTP status of the main document, when the application answered one. */
  httpStatus?: number;
  /** Blob key of the full-page screenshot at the failure. */
  screenshotKey?: string;
  /** A failed visual check: the diff image (differing pixels in red over the faded baseline). */
  diffKey?: string;
  /** A failed visual check: the image it took, proposed as the new baseline. */
  actualKey?: string;
  /**
   * Every visual check of the test that differed from its baseline, in step order: a visual difference does not
   * stop the replay (the steps after it still run), so a test may fail at a later step and show these too.
   */
  visualChanges?: VisualDifference[];
}

/** One visual check that differed from its baseline, and where its images are in the blob store. */
export interface VisualDifference {
  /** 0-based. */
  stepIndex: number;
  /** The element's locator; absent: the whole page. */
  locator?: string;
  /** The share of pixels that differ, 0 to 1 (1 when the sizes differ). */
  ratio: number;
  /** The baseline it was compared with (its own environment's or another's on the same device). */
  baselineKey?: string;
  actualKey?: string;
  /** Absent when the sizes differ: nothing to overlay. */
  diffKey?: string;
}

/** Which fact about a step's element changed since it was recorded. */
export const changeFields = ['role', 'name', 'text', 'url', 'value', 'state'] as const;
export type ChangeField = (typeof changeFields)[number];

/**
 * `regression`: the change breaks something a user depends on (a control lost its accessible name, a checkbox
 * became a generic element, an assertion's expectation no longer holds). `cosmetic`: the same control under a
 * changed label; worth a note, not a failure.
 */
export type ChangeSeverity = 'regression' | 'cosmetic';

/** One difference between the element a step used on replay and the element it was recorded on. */
export interface StepChange {
  /** 0-based, as every step index in results. */
  stepIndex: number;
  field: ChangeField;
  from: string | null;
  to: string | null;
  severity: ChangeSeverity;
  /** The change in plain words, e.g. `the checkbox "Select all" lost its accessible name`. */
  summary: string;
}

/** Whether any change is a regression: a change review cannot approve such a test. */
export function hasRegression(changes: readonly StepChange[] | null | undefined): boolean {
  return (changes ?? []).some((c) => c.severity === 'regression');
}
