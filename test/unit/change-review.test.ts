import { describe, expect, it } from 'vitest';
import { classifyChange, dedupeGoals, enforceVerdict, resultsTable, reviewBody } from '../../src/domain/change-review.js';
import { estimateTokens, fitDiffToBudget, parseUnifiedDiff } from '../../src/domain/diff.js';
import type { ChangedFile } from '../../src/git/provider.js';

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
      { path: 'docs/new.md', previousPath: 'docs/old.md', status: 'renamed', additions: 0, deletions: 0, binary: false },
      { path: 'img/logo.png', status: 'added', additions: 0, deletions: 0, binary: true },
      { path: 'src/gone.ts', status: 'removed', additions: 0, deletions: 1, binary: false },
    ]);
    expect(files[0]!.patch).toBe("@@ -1,3 +1,3 @@\n import x from 'y';\n-const a = 1;\n+const a = 2;\n+const b = 3;");
    expect(files[2]!.patch).toBeUndefined();
  });

  it('reads a plain unified diff without git headers', () => {
    expect(parseUnifiedDiff('--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-old\n+new\n')).toMatchObject([{ path: 'README.md', additions: 1, deletions: 1 }]);
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
    const fitted = fitDiffToBudget([file('src/a.ts', 3), { path: 'img/x.png', status: 'added', additions: 0, deletions: 0, binary: true }], { budgetTokens: 1_000 });
    expect(fitted.included).toEqual(['src/a.ts']);
    expect(fitted.omitted).toEqual(['img/x.png']);
    expect(fitted.text).toContain('+line 2 of src/a.ts');
    expect(fitted.text).toContain('Also changed (not shown):\n- img/x.png [added, +0 -0, binary]');
  });

  it('over budget: UI code before other code, tests, docs and lock files; the first that does not fit is cut, the rest named', () => {
    const files = [file('package-lock.json', 400), file('README.md', 50), file('src/api/orders.ts', 50), file('test/orders.test.ts', 50), file('src/components/Checkout.tsx', 50)];
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
    expect(classifyChange(['README.md', 'docs/setup.mdx'])).toMatchObject({ verifiable: false, reason: 'the change only touches documentation files' });
    expect(classifyChange(['.github/workflows/ci.yml', '.gitlab-ci.yml', 'CHANGELOG.md', '.eslintrc.json', 'tsconfig.build.json'])).toMatchObject({
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
  it('a FAILED test never yields Approved, whatever the model proposed', () => {
    expect(enforceVerdict('Approved', ['PASSED', 'FAILED'])).toBe('Changes Requested');
    expect(enforceVerdict('Comment', ['FAILED'])).toBe('Changes Requested');
  });

  it('Approved needs a PASSED test and no ERROR or NOT_RUN; otherwise at most a Comment', () => {
    expect(enforceVerdict('Approved', ['PASSED', 'PASSED'])).toBe('Approved');
    expect(enforceVerdict('Approved', [])).toBe('Comment');
    expect(enforceVerdict('Approved', ['PASSED', 'ERROR'])).toBe('Comment');
    expect(enforceVerdict('Approved', ['PASSED', 'NOT_RUN'])).toBe('Comment');
    expect(enforceVerdict('Changes Requested', ['PASSED'])).toBe('Changes Requested');
  });

  it('dedupes goals by their words, against each other and existing tests', () => {
    const goals = [{ goal: 'Check out the cart!' }, { goal: 'check out   the cart' }, { goal: 'Sign in' }, { goal: 'Apply a coupon' }];
    expect(dedupeGoals(goals, ['Sign in.']).map((g) => g.goal)).toEqual(['Check out the cart!', 'Apply a coupon']);
  });

  it('builds the results table from the results, escaping cells', () => {
    const table = resultsTable([
      { name: 'Checkout | express', origin: 'existing', result: 'FAILED', detail: '"Place the order" — step 6 (click):\ntimeout', url: 'https://app.test/runs/run_1' },
      { name: 'Coupon', origin: 'new', result: 'PASSED', url: 'https://app.test/runs/run_1' },
    ]);
    expect(table.split('\n')).toEqual([
      '| Test | New / existing | Result | Link |',
      '| --- | --- | --- | --- |',
      '| Checkout \\| express | existing | FAILED: "Place the order" — step 6 (click): timeout | [open](https://app.test/runs/run_1) |',
      '| Coupon | new | PASSED | [open](https://app.test/runs/run_1) |',
    ]);
    expect(reviewBody({ verdict: 'Approved', summary: 'All good.', rows: [], details: '' })).toMatch(/^\*\*Verdict: Approved\*\*\n\nAll good\.\n\n### Results\n\n_No tests were run\._/);
  });
});
