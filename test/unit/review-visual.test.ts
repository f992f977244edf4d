import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allowedVerdicts } from '../../src/domain/change-review.js';
import { reviewReply, type ReviewTableRow } from '../../src/domain/change-review-reply.js';
import { reviewResultOf, type RunOutcome, type VisualChangeFinding } from '../../src/domain/review-visual.js';
import { failureKinds, type VisualDifference } from '../../src/domain/verdicts.js';

// How a change review classifies a test's run when visual checks differed, over generated runs: a failure that is
// only visual is a visual change (never FAILED, never PASSED), any other failure stays FAILED whatever visual
// differences came with it; a visual change never lets a review approve, and its reply lists it in its own section.

const difference = fc.record({
  stepIndex: fc.nat({ max: 20 }),
  ratio: fc.double({ min: 0.0001, max: 1, noNaN: true }),
  diffKey: fc.constant('runs/r/t/visual-b-diff.png'),
}) satisfies fc.Arbitrary<VisualDifference>;

/** What happened at one step of a replay: it passed, its visual check differed, or it failed (of some kind). */
type StepOutcome = 'pass' | 'difference' | { failed: (typeof failureKinds)[number] };
const stepOutcome: fc.Arbitrary<StepOutcome> = fc.oneof(
  fc.constant<StepOutcome>('pass'),
  fc.constant<StepOutcome>('difference'),
  // `visual` here is a visual check that failed without a difference (its screenshot timed out).
  fc.constantFrom(...failureKinds).map((kind): StepOutcome => ({ failed: kind })),
);

/**
 * The run row a replay writes for those outcomes (src/browser/replay/replay.ts): a difference does not stop it; the
 * first other failure does; the test fails at that failure, else at its first difference.
 */
function runOf(outcomes: StepOutcome[]): RunOutcome {
  const visualChanges: VisualDifference[] = [];
  for (const [stepIndex, o] of outcomes.entries()) {
    if (o === 'difference') visualChanges.push({ stepIndex, ratio: 0.1, diffKey: `d${stepIndex}` });
    else if (o !== 'pass')
      return {
        result: 'FAILED',
        status: 'COMPLETED',
        failureKind: o.failed,
        failedStepIndex: stepIndex,
        visualChanges,
      };
  }
  const [first] = visualChanges;
  return first
    ? { result: 'FAILED', status: 'COMPLETED', failureKind: 'visual', failedStepIndex: first.stepIndex, visualChanges }
    : { result: 'PASSED', status: 'COMPLETED', failureKind: null, failedStepIndex: null, visualChanges };
}

/** A run row: from generated step outcomes, or a test that never got a result. */
const runOutcome: fc.Arbitrary<RunOutcome> = fc.oneof(
  fc.array(stepOutcome, { maxLength: 6 }).map(runOf),
  fc.record({
    result: fc.constantFrom('SKIPPED' as const, null),
    status: fc.constantFrom('SKIPPED', 'ERROR', 'CANCELLED'),
    failureKind: fc.constant(null),
    failedStepIndex: fc.constant(null),
    visualChanges: fc.constant([]),
  }),
);

describe('reviewResultOf', () => {
  it('a test whose only failures are visual differences is a VISUAL_CHANGE; any other failure stays FAILED with its differences', () => {
    fc.assert(
      fc.property(fc.array(stepOutcome, { maxLength: 6 }), (outcomes) => {
        const run = runOf(outcomes);
        const stopped = outcomes.findIndex((o) => typeof o === 'object');
        const ran = stopped < 0 ? outcomes : outcomes.slice(0, stopped + 1);
        const expected = stopped >= 0 ? 'FAILED' : ran.includes('difference') ? 'VISUAL_CHANGE' : 'PASSED';
        expect(reviewResultOf(run)).toBe(expected);
        // The differences before a failure are kept beside it: a failed test shows them too.
        expect(run.visualChanges.map((v) => v.stepIndex)).toEqual(
          ran.flatMap((o, i) => (o === 'difference' ? [i] : [])),
        );
      }),
    );
  });

  it('a test without a result is ERROR, or SKIPPED for a failed dependency', () => {
    for (const status of ['SKIPPED', 'ERROR', 'CANCELLED'])
      expect(
        reviewResultOf({ result: null, status, failureKind: null, failedStepIndex: null, visualChanges: [] }),
      ).toBe(status === 'SKIPPED' ? 'SKIPPED' : 'ERROR');
  });

  it('is never PASSED for a run with visual differences', () => {
    fc.assert(
      fc.property(fc.array(difference, { minLength: 1, maxLength: 3 }), (visualChanges) => {
        expect(
          reviewResultOf({
            result: 'PASSED',
            status: 'COMPLETED',
            failureKind: null,
            failedStepIndex: null,
            visualChanges,
          }),
        ).toBe('VISUAL_CHANGE');
      }),
    );
  });
});

const finding = (v: VisualDifference): VisualChangeFinding => ({
  stepIndex: v.stepIndex,
  step: `check ${v.stepIndex + 1}`,
  target: 'the page',
  ratio: v.ratio,
  diffUrl: `https://app.test/runs/run_1/tests/t/visual/${v.stepIndex}/diff.png`,
});

/** A reviewed test from a generated run, as the results activity builds it. */
const reviewedTest = fc
  .record({ run: runOutcome, quarantined: fc.boolean(), name: fc.constantFrom('Cart', 'Checkout', 'Login') })
  .map(({ run, quarantined, name }): ReviewTableRow => ({
    name,
    origin: 'existing',
    url: 'https://app.test/runs/run_1',
    testUrl: 'https://app.test/test-cases/tc',
    result: reviewResultOf(run),
    quarantined,
    ...(run.visualChanges.length > 0 && { visualChanges: run.visualChanges.map(finding) }),
  }));

describe('a review with visual changes', () => {
  it('never approves, whatever the model proposes; lists them apart; never calls them failed tests', () => {
    fc.assert(
      fc.property(
        fc.array(reviewedTest, { minLength: 1, maxLength: 5 }),
        fc.constantFrom('Approved', 'Changes Requested', 'Comment') as fc.Arbitrary<
          'Approved' | 'Changes Requested' | 'Comment'
        >,
        (tests, proposed) => {
          const counted = tests.filter((t) => !t.quarantined);
          const visual = counted.some((t) => t.result === 'VISUAL_CHANGE' || t.visualChanges?.length);
          const reply = reviewReply({
            tests,
            draft: { verdict: proposed, summary: 'Checked.', evaluationDetails: '-' },
            modelError: undefined,
            reasoning: '',
            runUrl: 'https://app.test/runs/run_1',
          });
          if (visual) {
            expect(allowedVerdicts(tests)).toEqual(['Changes Requested']);
            expect(reply.verdict).toBe('Changes Requested');
          }
          // Without a failure, regression or visual change the verdict is the model's when it is allowed.
          if (counted.length > 0 && counted.every((t) => t.result === 'PASSED' && !t.visualChanges?.length))
            expect(reply.verdict).toBe(proposed);
          const withFindings = counted.filter((t) => t.visualChanges?.length);
          expect(reply.body.includes('### Visual changes')).toBe(withFindings.length > 0);
          for (const t of withFindings)
            for (const v of t.visualChanges!) {
              expect(reply.body).toContain(
                `- "${t.name}", step ${v.stepIndex + 1} "${v.step}": the page looks different`,
              );
              expect(reply.body).toContain(`[diff](${v.diffUrl})`);
            }
          // A visual change's row says so, and a test whose only failures are visual is not in the table as FAILED.
          for (const t of counted.filter((x) => x.result === 'VISUAL_CHANGE'))
            expect(reply.body).toContain(`| ${t.name} | existing | VISUAL_CHANGE`);
          if (!tests.some((t) => t.result === 'FAILED')) expect(reply.body).not.toMatch(/\| existing \| FAILED/);
        },
      ),
    );
  });

  it('a quarantined test with a visual change reports it in the table, but forces nothing', () => {
    const tests: ReviewTableRow[] = [
      { name: 'Cart', origin: 'existing', url: 'https://app.test/r', result: 'PASSED' },
      {
        name: 'Banner',
        origin: 'existing',
        url: 'https://app.test/r',
        result: 'VISUAL_CHANGE',
        quarantined: true,
        visualChanges: [finding({ stepIndex: 0, ratio: 0.5 })],
      },
    ];
    expect(allowedVerdicts(tests)).toContain('Approved');
    const reply = reviewReply({
      tests,
      draft: { verdict: 'Approved', summary: 'Fine.', evaluationDetails: '-' },
      modelError: undefined,
      reasoning: '',
      runUrl: undefined,
    });
    expect(reply.verdict).toBe('Approved');
    expect(reply.body).not.toContain('### Visual changes');
    expect(reply.body).toContain('| Banner | existing | VISUAL_CHANGE: visual change at step 1 (50% differ)');
  });
});
