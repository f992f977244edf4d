// Flaky tests: when a failed test is run again, what a test's flake rate is, and when a project's rule
// quarantines it. Pure: the testExecution workflow, the run services and the API share these rules.
import type { FailureKind } from './verdicts.js';

/** A project runs a failed test again at most this many times (`retries` in the project settings). */
export const maxTestRetries = 3;
export const defaultTestRetries = 1;

/** A test's flake rate reads its last this many finished runs. */
export const flakeWindow = 20;

/**
 * Whether a failed attempt is worth another: a FAILED replay or an ERROR of the environment or of Proctor, yes;
 * a test that cannot run as defined (no steps, a missing dependency state) fails the same way every time.
 */
export function worthRetrying(outcome: 'PASSED' | 'FAILED' | 'ERROR', failureKind: FailureKind | undefined): boolean {
  return outcome !== 'PASSED' && failureKind !== 'test-definition';
}

/** One finished run of a test, as the flake rate counts it. */
export interface FinishedTestRun {
  /** PASSED only on a retry. */
  flaky: boolean;
}

export interface FlakeStats {
  /** Runs counted: the last `flakeWindow` in which the test was executed to a result (PASSED or FAILED). */
  recentRuns: number;
  /** Flaky runs among them divided by `recentRuns`; 0 when there are none. */
  flakeRate: number;
}

/**
 * Flaky runs over finished runs. A run that failed on every attempt is counted as a run but not as a flaky one:
 * a test that fails consistently has a bug (of the application or of the test), not a flake, and the failure
 * already fails the run. Skipped, cancelled and unfinished runs are not counted at all: the test said nothing.
 */
export function flakeStats(runs: readonly FinishedTestRun[]): FlakeStats {
  const recent = runs.slice(0, flakeWindow);
  const flaky = recent.filter((r) => r.flaky).length;
  return { recentRuns: recent.length, flakeRate: recent.length ? flaky / recent.length : 0 };
}

/** A project's quarantine rule: a flake rate at or above `flakeRate` over at least `minRuns` finished runs. */
export interface QuarantineRule {
  flakeRate: number;
  minRuns: number;
}

/** The smallest flake rate a rule may name (1%). */
export const minRuleFlakeRate = 0.01;

/**
 * A rule's rate as read back from its single-precision column: 0.3 is stored as 0.30000001…, and a test at exactly
 * 30% must still reach a 30% rule. Four decimals are finer than any rate over 20 runs (steps of 5%).
 */
export const storedRuleRate = (rate: number): number => Math.round(rate * 10_000) / 10_000;

/** Whether a test is quarantined: by its manual flag, or by the project's rule (null: no rule). */
export function isQuarantined(manual: boolean, rule: QuarantineRule | null, stats: FlakeStats): boolean {
  if (manual) return true;
  return rule !== null && stats.recentRuns >= rule.minRuns && stats.flakeRate >= rule.flakeRate;
}
