import { describe, expect, it } from 'vitest';
import {
  allowedVerdicts,
  classifyChange,
  dedupeGoals,
  enforceVerdict,
  overruledNote,
  verdictFromResults,
  type ReviewedTest,
  type ReviewTestResult,
} from '../../src/domain/change-review.js';
import {
  chosenTestsLine,
  nothingRunReply,
  resultsTable,
  reviewBody,
  reviewReply,
  summaryWithFacts,
  type ReviewTableRow,
} from '../../src/domain/change-review-reply.js';
import type { StepChange } from '../../src/domain/verdicts.js';
import type { ChangedFile, ReviewVerdict } from '../../src/domain/git.js';
import { estimateTokens, fitDiffToBudget, parseUnifiedDiff } from '../../src/domain/diff.js';

const gitDiff = `diff --git a/src/Checkout.tsx b/src/Checkout.tsx
index 1..2 100644
--- a/src/Checkout.tsx
+++ b/src/Checkout.tsx
@@ -1,3 +1,3 @@
 import x from 'y';
-const a = 1;
+const a = 2;
+const b = 3;
diff --git a/docs/old.md b/docs/new.md
similarity index 90%
rename from docs/old.md
rename to docs/new.md
diff --git a/img/logo.png b/img/logo.png
new file mode 100644
Binary files /dev/null and b/img/logo.png differ
diff --git a/src/gone.ts b/src/gone.ts
deleted file mode 100644
--- a/src/gone.ts
+++ /dev/null
@@ -1 +0,0 @@
-export const gone = 1;
`;

describe('parseUnifiedDiff', () => {
  it('reads each file of a git diff: status, renames, binary files, line counts and hunks', () => {
    const files = parseUnifiedDiff(gitDiff);
    expect(files.map(({ patch: _patch, ...f }) => f)).toEqual([
      { path: 'src/Checkout.tsx', status: 'modified', additions: 2, deletions: 1, binary: false },
      {
        path: 'docs/new.md',
        previousPath: 'docs/old.md',
        status: 'renamed',
        additions: 0,
        deletions: 0,
        binary: false,
      },
      { path: 'img/logo.png', status: 'added', additions: 0, deletions: 0, binary: true },
      { path: 'src/gone.ts', status: 'removed', additions: 0, deletions: 1, binary: false },
    ]);
    expect(files[0]!.patch).toBe("@@ -1,3 +1,3 @@\n import x from 'y';\n-const a = 1;\n+const a = 2;\n+const b = 3;");
    expect(files[2]!.patch).toBeUndefined();
  });

  it('reads a plain unified diff without git headers', () => {
    expect(parseUnifiedDiff('--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-old\n+new\n')).toMatchObject([
      { path: 'README.md', additions: 1, deletions: 1 },
    ]);
    expect(parseUnifiedDiff('just some words')).toEqual([]);
  });
});

describe('fitDiffToBudget', () => {
  const file = (path: string, lines: number, extra: Partial<ChangedFile> = {}): ChangedFile => ({
    path,
    status: 'modified',
    additions: lines,
    deletions: 0,
    binary: false,
    patch: `@@ -1 +1,${lines} @@\n${Array.from({ length: lines }, (_, i) => `+line ${i} of ${path}`).join('\n')}`,
    ...extra,
  });

  it('sends everything that fits; binary files are named, never sent', () => {
    const fitted = fitDiffToBudget(
      [file('src/a.ts', 3), { path: 'img/x.png', status: 'added', additions: 0, deletions: 0, binary: true }],
      { budgetTokens: 1_000 },
    );
    expect(fitted.included).toEqual(['src/a.ts']);
    expect(fitted.omitted).toEqual(['img/x.png']);
    expect(fitted.text).toContain('+line 2 of src/a.ts');
    expect(fitted.text).toContain('Also changed (not shown):\n- img/x.png [added, +0 -0, binary]');
  });

  it('over budget: UI code before other code, tests, docs and lock files; the first that does not fit is cut, the rest named', () => {
    const files = [
      file('package-lock.json', 400),
      file('README.md', 50),
      file('src/api/orders.ts', 50),
      file('test/orders.test.ts', 50),
      file('src/components/Checkout.tsx', 50),
    ];
    const fitted = fitDiffToBudget(files, { budgetTokens: 1_200 });
    expect(fitted.included).toEqual(['src/components/Checkout.tsx', 'src/api/orders.ts']);
    expect(fitted.truncated).toBe('test/orders.test.ts');
    expect(fitted.omitted).toEqual(['README.md', 'package-lock.json']);
    expect(fitted.text).toContain('[… patch cut to fit the review');
    expect(fitted.text).not.toContain('line 0 of package-lock.json');
    expect(estimateTokens(fitted.text)).toBeLessThanOrEqual(1_200 + 50);
  });

  it('a file the description names ranks higher; within a rank smaller patches go first', () => {
    const files = [file('src/big.ts', 200), file('src/small.ts', 5), file('src/pricing.ts', 100)];
    const fitted = fitDiffToBudget(files, { budgetTokens: 2_000, hints: 'Fix rounding in pricing' });
    expect(fitted.included[0]).toBe('src/pricing.ts');
    expect(fitted.included).toContain('src/small.ts');
    expect(fitted.text.indexOf('src/small.ts')).toBeLessThan(fitted.text.indexOf('src/big.ts'));
  });
});

describe('classifyChange', () => {
  it('docs, CI and tooling configuration only: not verifiable in a browser, with the reason', () => {
    expect(classifyChange(['README.md', 'docs/setup.mdx'])).toMatchObject({
      verifiable: false,
      reason: 'the change only touches documentation files',
    });
    expect(
      classifyChange([
        '.github/workflows/ci.yml',
        '.gitlab-ci.yml',
        'CHANGELOG.md',
        '.eslintrc.json',
        'tsconfig.build.json',
      ]),
    ).toMatchObject({
      verifiable: false,
      counts: { docs: 1, ci: 2, config: 2, code: 0 },
      reason: 'the change only touches documentation and CI pipeline and tooling configuration files',
    });
    expect(classifyChange([])).toMatchObject({ verifiable: false, reason: 'the change contains no file changes' });
  });

  it('any code file makes it verifiable (package.json too: a dependency bump can break the app)', () => {
    expect(classifyChange(['README.md', 'src/Checkout.tsx']).verifiable).toBe(true);
    expect(classifyChange(['package.json']).verifiable).toBe(true);
  });
});

describe('verdict rules', () => {
  const results: ReviewTestResult[] = ['PASSED', 'FAILED', 'ERROR', 'SKIPPED', 'NOT_RUN'];
  const regression: StepChange = {
    stepIndex: 2,
    field: 'name',
    from: 'Select all',
    to: null,
    severity: 'regression',
    summary: 'the checkbox "Select all" lost its accessible name',
  };
  const cosmetic: StepChange = {
    stepIndex: 4,
    field: 'name',
    from: 'Save',
    to: 'Save changes',
    severity: 'cosmetic',
    summary: 'the button "Save" now reads "Save changes"',
  };
  const changeSets: Record<string, StepChange[] | undefined> = {
    none: undefined,
    cosmetic: [cosmetic],
    regression: [regression],
    both: [cosmetic, regression],
  };
  const verdicts: ReviewVerdict[] = ['Approved', 'Changes Requested', 'Comment'];
  const any: ReviewVerdict[] = ['Approved', 'Changes Requested', 'Comment'];
  const noApproval: ReviewVerdict[] = ['Changes Requested', 'Comment'];

  /**
   * The rule in words, cell by cell: a quarantined test counts for nothing; a counted FAILED test or a counted
   * regression forces Changes Requested; Approved needs a counted PASSED test and no counted ERROR or NOT_RUN.
   */
  function expected(test: ReviewedTest, withPassingTest: boolean): ReviewVerdict[] {
    const regressed = (test.changes ?? []).some((c) => c.severity === 'regression');
    if (test.quarantined) return withPassingTest ? any : noApproval;
    if (test.result === 'FAILED' || regressed) return ['Changes Requested'];
    if (test.result === 'ERROR' || test.result === 'NOT_RUN') return noApproval;
    return test.result === 'PASSED' || withPassingTest ? any : noApproval;
  }

  const matrix = results.flatMap((result) =>
    Object.entries(changeSets).flatMap(([changeKind, changes]) =>
      [false, true].flatMap((quarantined) =>
        [false, true].map((withPassingTest) => ({
          label: `${result} × ${changeKind} changes × ${quarantined ? 'quarantined' : 'counted'}${withPassingTest ? ' + a passing test' : ''}`,
          test: { name: 'Bulk delete', result, changes, quarantined },
          withPassingTest,
        })),
      ),
    ),
  );

  it('covers every result × change severity × quarantine, alone and beside a passing test (80 cells)', () => {
    expect(matrix).toHaveLength(results.length * Object.keys(changeSets).length * 2 * 2);
  });

  it.each(matrix)(
    '$label: the verdicts allowed, and what enforcing each proposal yields',
    ({ test, withPassingTest }) => {
      const tests: ReviewedTest[] = withPassingTest ? [test, { result: 'PASSED' }] : [test];
      const allowed = expected(test, withPassingTest);
      expect(allowedVerdicts(tests)).toEqual(allowed);
      for (const proposed of verdicts) {
        const verdict = enforceVerdict(proposed, tests);
        expect(verdict).toBe(allowed.includes(proposed) ? proposed : allowed.length === 1 ? allowed[0] : 'Comment');
        expect(allowed).toContain(verdict);
      }
      expect(allowed).toContain(verdictFromResults(tests));
    },
  );

  it.each(matrix.filter((c) => !c.withPassingTest))(
    '$label: the summary and the results table say each change in plain words',
    ({ test }) => {
      const row: ReviewTableRow = { ...test, origin: 'existing', url: 'https://app.test/runs/run_1' };
      const summary = summaryWithFacts('The model wrote this.', [row]);
      const table = resultsTable([row]);
      const regressed = (test.changes ?? []).some((c) => c.severity === 'regression');
      const noted = (test.changes ?? []).some((c) => c.severity === 'cosmetic');
      // A regression is named in the summary unless the test is quarantined; both are in the table either way.
      expect(summary.includes(`Regression in "Bulk delete": ${regression.summary}.`)).toBe(
        regressed && !test.quarantined,
      );
      expect(summary.startsWith('The model wrote this.')).toBe(true);
      expect(summary).not.toContain(cosmetic.summary);
      expect(table.includes(`regression: ${regression.summary}`)).toBe(regressed);
      expect(table.includes(`note: ${cosmetic.summary}`)).toBe(noted);
      expect(table.includes('**Quarantined**')).toBe(test.quarantined);
    },
  );

  it('a regression the model already quoted is not repeated; the note says why the verdict was overruled', () => {
    const tests = [{ name: 'Bulk delete', result: 'PASSED' as const, changes: [regression] }];
    const quoted = `Regression in "Bulk delete": ${regression.summary}.`;
    expect(summaryWithFacts(`Found one. ${quoted}`, tests)).toBe(`Found one. ${quoted}`);
    expect(overruledNote('Approved', tests)).toBe(
      'The model proposed "Approved"; a regression means changes are requested.',
    );
    expect(overruledNote('Approved', [{ result: 'FAILED' }])).toBe(
      'The model proposed "Approved"; a failed test means changes are requested.',
    );
    expect(overruledNote('Approved', [{ result: 'ERROR' }])).toBe(
      'The model proposed "Approved"; too little was verified to approve.',
    );
  });

  it('what a burn-in did not cover is named in the summary and the table, not counted as tested', () => {
    const row: ReviewTableRow = {
      name: 'Download the invoice',
      origin: 'new',
      result: 'PASSED',
      notCovered: ["the downloaded file's contents"],
      url: 'https://app.test/runs/run_1',
    };
    expect(summaryWithFacts('Downloads work.', [row])).toBe(
      `Downloads work. Not covered by "Download the invoice" (its burn-in could not verify it): the downloaded file's contents.`,
    );
    expect(resultsTable([row])).toContain(
      `| Download the invoice | new | PASSED: not covered: the downloaded file's contents | [open](https://app.test/runs/run_1) |`,
    );
  });

  it('dedupes goals by their words, against each other and existing tests', () => {
    const goals = [
      { goal: 'Check out the cart!' },
      { goal: 'check out   the cart' },
      { goal: 'Sign in' },
      { goal: 'Apply a coupon' },
    ];
    expect(dedupeGoals(goals, ['Sign in.']).map((g) => g.goal)).toEqual(['Check out the cart!', 'Apply a coupon']);
  });

  it('builds the results table from the results, escaping cells', () => {
    const table = resultsTable([
      {
        name: 'Checkout | express',
        origin: 'existing',
        result: 'FAILED',
        detail: '"Place the order" — step 6 (click):\ntimeout',
        url: 'https://app.test/runs/run_1',
      },
      { name: 'Coupon', origin: 'new', result: 'PASSED', url: 'https://app.test/runs/run_1' },
    ]);
    expect(table.split('\n')).toEqual([
      '| Test | New / existing | Result | Link |',
      '| --- | --- | --- | --- |',
      '| Checkout \\| express | existing | FAILED: "Place the order" — step 6 (click): timeout | [open](https://app.test/runs/run_1) |',
      '| Coupon | new | PASSED | [open](https://app.test/runs/run_1) |',
    ]);
    expect(reviewBody({ verdict: 'Approved', summary: 'All good.', rows: [], details: '' })).toMatch(
      /^\*\*Verdict: Approved\*\*\n\nAll good\.\n\n### Results\n\n_No tests were run\._/,
    );
  });

  it('the reply of a review: the results bound the verdict the model drafts, a missing or failed draft is decided from them', () => {
    const row = (result: ReviewedTest['result'], name: string) => ({
      result,
      name,
      origin: 'existing' as const,
      url: `https://app.test/t/${name}`,
    });
    const passed = [row('PASSED', 'Cart'), row('PASSED', 'Login')];
    const draft = { verdict: 'Approved' as const, summary: ' Looks good. ', evaluationDetails: 'Both flows work.' };
    expect(
      reviewReply({
        tests: passed,
        draft,
        modelError: undefined,
        reasoning: 'r',
        runUrl: 'https://app.test/runs/run_1',
      }),
    ).toMatchObject({ verdict: 'Approved', summary: 'Looks good.' });
    const failed = [row('FAILED', 'Cart'), row('PASSED', 'Login')];
    const overruled = reviewReply({ tests: failed, draft, modelError: undefined, reasoning: 'r', runUrl: undefined });
    expect(overruled.verdict).toBe('Changes Requested');
    expect(overruled.body).toContain(`_${overruledNote('Approved', failed)}_`);
    const noModel = reviewReply({
      tests: passed,
      draft: undefined,
      modelError: 'timed out',
      reasoning: 'chosen because',
      runUrl: undefined,
    });
    expect(noModel).toMatchObject({ verdict: verdictFromResults(passed), summary: '2 tests passed of 2.' });
    expect(noModel.body).toContain(
      '_The model could not write the verdict (timed out); it was decided from the results._',
    );
    expect(noModel.body).toContain('chosen because');
    expect(
      reviewReply({
        tests: [row('PASSED', 'Cart')],
        draft: undefined,
        modelError: undefined,
        reasoning: '',
        runUrl: undefined,
      }).summary,
    ).toBe('1 test passed of 1.');
  });

  it('names the chosen tests, and says when nothing ran', () => {
    expect(chosenTestsLine([{ name: 'Cart' }])).toBe('Selected 1 existing test: "Cart".');
    expect(chosenTestsLine([{ name: 'Cart' }, { name: 'Login' }])).toBe('Selected 2 existing tests: "Cart", "Login".');
    expect(chosenTestsLine([])).toBe('No existing test covers the change.');
    expect(nothingRunReply('Only copy changed.')).toMatchObject({
      verdict: 'Comment',
      summary: 'No existing test covers this change and no new test was needed, so nothing was run. Only copy changed.',
    });
  });
});
