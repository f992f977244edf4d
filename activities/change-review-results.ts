// The change review's run results, per test as the verdict rules and the reply read them: its result and, for a
// failure, the failing step and reason; what its replay reported changed, whether it is quarantined, what its
// burn-in did not cover, its quality against the base environment; links to the run. And the uncovered pages the
// change touches. Apart from change-review.ts (the review's other activities) because it only reads.
import type { ActivityDeps } from './deps.js';
import { findChangeReview, notCoveredByTestCase, storedSteps } from '../src/db/queries/change-reviews.js';
import { runShortIdById } from '../src/db/queries/run-progress.js';
import { runTestRows } from '../src/db/queries/runs.js';
import { reviewQuality } from '../src/services/quality-review.js';
import type { UncoveredPages } from '../src/domain/change-review-reply.js';
import { NotFoundError } from '../src/domain/errors.js';
import { uncoveredPagesOfChange } from '../src/services/review-coverage.js';
import type { ChangeReviewTestResult } from '../workflows/change-review-contract.js';
import { reviewResultOf, type VisualChangeFinding } from '../src/domain/review-visual.js';
import type { VisualDifference } from '../src/domain/verdicts.js';

export function createChangeReviewResultActivities(deps: ActivityDeps) {
  const { db } = deps;
  const appUrl = deps.notify.appUrl;

  return {
    /**
     * The pages of the coverage map the change touches (its route files render them, or the review's run went
     * there) that no enabled test visits, per application with a completed discovery (src/services/review-coverage.ts).
     */
    async reviewUncoveredPages(input: { changeReviewId: string }): Promise<UncoveredPages[]> {
      const review = await findChangeReview(db, input.changeReviewId);
      if (!review) throw new NotFoundError('Change review', input.changeReviewId);
      return uncoveredPagesOfChange(
        deps,
        review,
        (review.change?.files ?? []).map((f) => f.path),
      );
    },

    /**
     * Per test of the run: its result and, for a failure, the failing step and reason; what its replay reported
     * changed, whether it is quarantined, and what its burn-in did not cover; links to the run.
     */
    async reviewRunResults(input: {
      projectId: string;
      runId: string;
      newTestIds: string[];
    }): Promise<ChangeReviewTestResult[]> {
      const rows = await runTestRows(db, input.runId, false);
      const url = `${appUrl}/runs/${await runShortIdById(db, input.runId)}`;
      const isNew = new Set(input.newTestIds);
      const differences = new Map(rows.map((r) => [r.id, visualDifferencesOf(r)]));
      const steps = await failingSteps(
        rows.flatMap((r) =>
          r.test_case_id
            ? [
                ...(r.failed_step_index !== null ? [r.failed_step_index] : []),
                ...differences.get(r.id)!.map((v) => v.stepIndex),
              ].map((index) => ({ testCaseId: r.test_case_id!, index }))
            : [],
        ),
      );
      const testCaseIds = [...new Set(rows.flatMap((r) => (r.test_case_id ? [r.test_case_id] : [])))];
      const reservations = await notCoveredByTestCase(db, testCaseIds);
      // Only tests whose signals were collected on the preview are compared (an errored test has none).
      const quality = await reviewQuality(
        deps,
        input.projectId,
        rows.filter((r) => r.signal_counts !== null),
      );
      return rows.map((r) => {
        // No result: the test errored (or was cancelled), unless it was skipped for a failed dependency. A test
        // whose only failures are visual is a VISUAL_CHANGE, its differences a finding of their own.
        const visual = differences.get(r.id)!;
        const result = reviewResultOf({
          result: r.result,
          status: r.status,
          failureKind: r.failure_kind,
          failedStepIndex: r.failed_step_index,
          visualChanges: visual,
        });
        const visualChanges = visual.map((v): VisualChangeFinding => ({
          stepIndex: v.stepIndex,
          step: (r.test_case_id && steps.get(`${r.test_case_id}:${v.stepIndex}`)) || `step ${v.stepIndex + 1}`,
          target: v.locator ?? 'the page',
          ratio: v.ratio,
          ...imagesOf(`${url}/tests/${r.id}/visual/${v.stepIndex}`, v),
        }));
        const step =
          r.test_case_id && r.failed_step_index !== null
            ? steps.get(`${r.test_case_id}:${r.failed_step_index}`)
            : undefined;
        const detail =
          result === 'PASSED' ? undefined : [step && `"${step}"`, r.error].filter(Boolean).join(' — ') || undefined;
        const notCovered = r.test_case_id ? (reservations.get(r.test_case_id) ?? []) : [];
        return {
          testCaseId: r.test_case_id ?? r.id,
          name: r.name,
          origin: r.test_case_id && isNew.has(r.test_case_id) ? 'new' : 'existing',
          result,
          ...(detail && { detail }),
          url,
          ...(r.changes?.length && { changes: r.changes }),
          ...(r.quarantined && { quarantined: true }),
          ...(notCovered.length > 0 && { notCovered }),
          ...(r.test_case_id && quality.has(r.test_case_id) && { quality: quality.get(r.test_case_id) }),
          ...(visualChanges.length > 0 && { visualChanges }),
          ...(r.test_case_id && { testUrl: `${appUrl}/test-cases/${r.test_case_id}` }),
        };
      });
    },
  };

  /** The description of each failing step, by `testCaseId:index`. */
  async function failingSteps(wanted: { testCaseId: string; index: number }[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (wanted.length === 0) return out;
    const rows = await storedSteps(db, [...new Set(wanted.map((w) => w.testCaseId))]);
    type StoredStep = { description?: string; action: string };
    const listOf = (steps: unknown): StoredStep[] =>
      Array.isArray(steps) ? steps : ((steps as { steps?: StoredStep[] } | null)?.steps ?? []);
    const steps = new Map(rows.map((r) => [r.id, listOf(r.steps)]));
    for (const w of wanted) {
      const step = steps.get(w.testCaseId)?.[w.index];
      if (step) out.set(`${w.testCaseId}:${w.index}`, step.description ?? step.action);
    }
    return out;
  }
}

/**
 * The visual differences a run row kept. A row written before every difference was listed keeps its failing
 * visual check's images alone: that one, at its failing step.
 */
function visualDifferencesOf(r: {
  evidence: { visualChanges?: VisualDifference[]; diffKey?: string; actualKey?: string } | null;
  failure_kind: string | null;
  failed_step_index: number | null;
  error: string | null;
}): VisualDifference[] {
  if (r.evidence?.visualChanges) return r.evidence.visualChanges;
  // Its image was kept whenever the check found a difference; without one the check failed otherwise (a timeout).
  if (r.failure_kind !== 'visual' || r.failed_step_index === null || !r.evidence?.actualKey) return [];
  // Its share of differing pixels is in its message (`… pixels differ (1.2%; allowed 0%)`); a size change is all.
  const percent = /\(([\d.]+)%; allowed/.exec(r.error ?? '')?.[1];
  return [
    {
      stepIndex: r.failed_step_index,
      ratio: percent ? Number(percent) / 100 : 1,
      ...(r.evidence?.diffKey && { diffKey: r.evidence.diffKey }),
      ...(r.evidence?.actualKey && { actualKey: r.evidence.actualKey }),
    },
  ];
}

/** The blob keys of a difference's images and their dashboard links (`<run test>/visual/<step>/<which>.png`). */
function imagesOf(base: string, v: VisualDifference): Partial<VisualChangeFinding> {
  return {
    ...(v.diffKey && { diffKey: v.diffKey, diffUrl: `${base}/diff.png` }),
    ...(v.actualKey && { actualKey: v.actualKey, actualUrl: `${base}/actual.png` }),
    ...(v.baselineKey && { baselineKey: v.baselineKey, baselineUrl: `${base}/baseline.png` }),
  };
}
