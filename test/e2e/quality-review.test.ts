import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addProfilePlan } from '../support/applications.js';
import { startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';
import { approvingReview, changeReviewAction } from '../support/review-script.js';
import { startScriptedLlm, type ScriptedLlm } from '../support/scripted-llm.js';
import { startStack, waitForRun, type Stack } from '../support/worker-context.js';

// Change reviews weigh quality signals (real stack, the fixture profile page as base environment and previews, the
// scripted model): the preview's signals against the latest run of the same test on the base environment.

const diff = (what: string) => `diff --git a/src/profile/Profile.tsx b/src/profile/Profile.tsx
index 3f1c2aa..9b0d7e1 100644
--- a/src/profile/Profile.tsx
+++ b/src/profile/Profile.tsx
@@ -12,3 +12,3 @@ export function Profile() {
${what}
`;
const unlabel = diff('-      <label htmlFor="email">Email</label>\n+      <label>Email</label>');
const relabel = diff('-      <label>Email</label>\n+      <label htmlFor="email">Email</label>');

describe('change review weighs quality signals', () => {
  let base: FixtureApps;
  let preview: FixtureApps;
  let llm: ScriptedLlm;
  let stack: Stack;
  let appShortId: string;
  let planShortId: string;
  let testCaseId: string;

  beforeAll(async () => {
    [base, preview, llm] = await Promise.all([startFixtureApps(), startFixtureApps(), startScriptedLlm()]);
    stack = await startStack({ llm });
    ({ appShortId, testCaseId, planShortId } = await addProfilePlan(stack, `${base.url}/quality/`));
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await Promise.all([base?.stop(), preview?.stop(), llm?.stop()]);
  });
  beforeEach(() => llm.reset());

  /** A run on the base environment: the baseline the next review compares with. */
  const runOnBase = async () => {
    const started = await stack.call('POST', '/v1/run', { testPlanShortId: planShortId });
    expect(await waitForRun(stack, started.body.run.shortId)).toMatchObject({ status: 'COMPLETED', result: 'PASSED' });
  };
  /** The model picks the profile test and proposes Approved whatever happened: code decides what the signals allow. */
  const model = () => approvingReview(testCaseId, 'the profile form');
  const review = (changeDiff: string) => ({
    mode: 'rawChanges',
    changes: { changeDescription: 'Profile form markup', diff: changeDiff },
    applicationOverrides: [{ applicationShortId: appShortId, environment: { url: `${preview.url}/quality/` } }],
  });

  it("a change that removes the label's association: Changes Requested naming the axe rule and the control, although the test passed; the fixing change: Approved, listing the issue as fixed", async () => {
    await runOnBase();
    preview.quality.setQualityProblems(['label']);
    llm.enqueue(model(), model());
    const broken = await changeReviewAction(stack, review(unlabel));

    expect(broken.verdict).toBe('Changes Requested');
    expect(broken.text).toContain(
      'a new uncaught exception or serious accessibility violation means changes are requested',
    );
    expect(broken.text).toMatch(
      /New issue in "Save the profile": a11y \(critical\) on \/quality\/: label: Form elements must have labels \(#email <input id="email"/,
    );
    expect(broken.text).toContain('Health against the base environment: 1 new, 0 fixed, 0 unchanged quality issues.');
    expect(broken.text).toMatch(/\| Save the profile \| existing \| PASSED: new issue: a11y \(critical\)/);
    // A preview's signals are compared, never made project issues.
    expect((await stack.call('GET', '/v1/issues')).body.total).toBe(0);

    // The change is merged: the base environment now has the problem, and its run is the new baseline.
    base.quality.setQualityProblems(['label']);
    await runOnBase();
    expect((await stack.call('GET', '/v1/issues?kind=a11y')).body.issues.map((i: any) => i.rule)).toEqual(['label']);
    preview.quality.setQualityProblems([]);
    llm.enqueue(model(), model());
    const fixed = await changeReviewAction(stack, review(relabel));

    expect(fixed.verdict).toBe('Approved');
    expect(fixed.text).toMatch(
      /Fixed in "Save the profile": a11y \(critical\) on \/quality\/: label: Form elements must have labels \(#email/,
    );
    expect(fixed.text).toContain('Health against the base environment: 0 new, 1 fixed, 0 unchanged quality issues.');
  }, 240_000);

  it('a new uncaught exception on the preview also requests changes; an unchanged problem does not', async () => {
    // The base still has the unlabeled input (previous test): on the preview it is unchanged, the exception is new.
    preview.quality.setQualityProblems(['label', 'exception']);
    llm.enqueue(model(), model());
    const outcome = await changeReviewAction(stack, review(unlabel));
    expect(outcome.verdict).toBe('Changes Requested');
    expect(outcome.text).toContain(
      'New issue in "Save the profile": exception (serious) on /quality/: TypeError: Cannot read properties of null (reading \'name\').',
    );
    expect(outcome.text).toContain('Health against the base environment: 1 new, 0 fixed, 1 unchanged quality issues.');
    expect(outcome.text).not.toContain('label: Form elements must have labels');

    preview.quality.setQualityProblems(['label']);
    llm.enqueue(model(), model());
    const unchanged = await changeReviewAction(stack, review(unlabel));
    expect(unchanged.verdict).toBe('Approved');
    expect(unchanged.text).toContain(
      'Health against the base environment: 0 new, 0 fixed, 1 unchanged quality issues.',
    );
  }, 240_000);
});
