import { configReferences, type Step } from './steps.js';
import type { FailureKind } from './verdicts.js';

// The verifying replay of a burn-in (issue 32): before a recording is saved as COMPLETED, its steps are replayed in
// a fresh browser context with no model call, as every scheduled run will replay them. A failed call's effect on
// the page (a scroll that stopped short, a list left open) is kept in the burn-in's page but not in its recording;
// this replay is where that shows. Pure data and rules, shared by the workflow, the activities and the API.

/** Most times the agent records again from a failing step before the burn-in ends FAILED. */
export const maxRerecordings = 2;

/** One verifying replay that failed (the agent then recorded again from its failing step, or the burn-in failed). */
export interface FailedReplay {
  /** 0-based; -1 when the start page did not open. */
  failedStepIndex: number;
  error: string;
  failureKind?: FailureKind;
}

/** The verifying replay of the steps as saved (the last one), and the ones before it that failed. */
export interface RecordingCheck {
  status: 'PASSED' | 'FAILED';
  /** Replays done: 1 when the first recording replayed, one more for each time the agent recorded again. */
  attempts: number;
  /** Of the last replay. */
  durationMs: number;
  failedStepIndex?: number;
  error?: string;
  failureKind?: FailureKind;
  /** The earlier replays that failed and made the agent record again, oldest first. */
  rerecordedAfter: FailedReplay[];
  /** The steps version it replayed (set when stored: the version the saved steps got). */
  stepsVersion?: number;
}

/** What the agent is told when the replay failed: it records again from the failing step, the steps before it kept. */
export function replayFailureNote(failure: FailedReplay): string {
  const step = failure.failedStepIndex + 1;
  const kept =
    step > 1
      ? `Steps 1-${step - 1} replayed and are kept (this page is where they ended)`
      : 'No step before it is kept (this is the start page)';
  return `the recorded steps were replayed in a fresh browser and failed at step ${step}: ${failure.error}. ${kept}; record the rest again from here, so that a replay starting from the beginning reaches the goal`;
}

/** The burn-in's failure reason when the steps still do not replay. */
export function notReplayingReason(failure: FailedReplay): string {
  return `the recorded steps do not replay: ${failure.error}`;
}

/**
 * How long a replay right after a recording waits before it may type a TOTP code: the code the recording typed
 * stays current until its period ends, and a site refuses a code used twice (RFC 6238 section 5.2), as the auth
 * fixture does. 0 when no step types one. `periods`: seconds per TOTP config name that the replay may type.
 */
export function msUntilFreshTotp(
  steps: Step[],
  periods: Record<string, number>,
  nowMs: number,
  always: string[] = [],
): number {
  const typed = new Set([...configReferences(JSON.stringify(steps)), ...always]);
  const waits = Object.entries(periods)
    .filter(([name]) => typed.has(name))
    .map(([, period]) => period * 1000 - (nowMs % (period * 1000)) + totpMarginMs);
  return Math.max(0, ...waits);
}

/** After the period's end, so that the new code is current on the site's clock too. */
const totpMarginMs = 250;
