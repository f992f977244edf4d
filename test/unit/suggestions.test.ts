import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeCoverage, formId, type CoveredTest, type MapPattern } from '../../src/domain/coverage.js';
import { defaultWording, suggestionCandidates, suggestionFingerprint } from '../../src/domain/suggestions.js';
import { base, forms, shopMap, shopTests } from '../support/coverage-fixture.js';

// Suggested tests from the hand-written shop (test/support/coverage-fixture.ts): its three tests leave the coupon,
// profile and search forms and the order list uncovered (the home page is uncovered too, but its search form's
// suggestion starts there and covers it).

const coverage = computeCoverage(shopMap, shopTests, base);

describe('suggestion candidates', () => {
  it('one per uncovered form and per uncovered important page, forms first, POST over GET', () => {
    const candidates = suggestionCandidates(shopMap, coverage);
    expect(candidates.map((c) => [c.kind, c.startPage, c.form?.name ?? null, c.score])).toEqual([
      // 100 + POST 40 + 1 field (2) + 1 required (1) + depth 1 (3); the tie ordered by start page.
      ['form', '/cart', 'Coupon', 146],
      ['form', '/settings', 'Profile', 146],
      // 100 + GET 10 - search 30 + 1 field (2) + none required + depth 0: started on its shallowest page, /.
      ['form', '/', 'Search', 82],
      // 50 + 8 pages link to it + depth 1 (3).
      ['page', '/orders', null, 61],
    ]);
    expect(candidates[2]!.patterns).toEqual(['/']);
    expect(candidates[2]!.forms).toEqual([formId(forms.search)]);
  });

  it('drops what a test comes to cover, and what was rejected (by fingerprint)', () => {
    const coupon: CoveredTest = {
      id: 't5',
      name: 'Apply a coupon',
      startUrl: `${base}/cart`,
      lastPassedAt: null,
      steps: [
        { action: 'fill', locator: "getByLabel('Coupon code')", value: 'TEN', description: 'code', at: '/cart' },
        { action: 'navigate', value: '/orders', description: 'orders', at: '/orders' },
      ],
    };
    const after = computeCoverage(shopMap, [...shopTests, coupon], base);
    expect(suggestionCandidates(shopMap, after).map((c) => c.form?.name ?? c.startPage)).toEqual(['Profile', 'Search']);
    const rejected = new Set([suggestionCandidates(shopMap, coverage)[1]!.fingerprint]);
    expect(
      suggestionCandidates(shopMap, coverage, { known: rejected }).map((c) => c.form?.name ?? c.startPage),
    ).toEqual(['Coupon', 'Search', '/orders']);
  });

  it('a fingerprint is what it covers: the same form found on another page in a later discovery keeps it', () => {
    const before = suggestionCandidates(shopMap, coverage);
    const moved = shopMap.map((p) =>
      p.pattern === '/cart'
        ? { ...p, forms: [] }
        : p.pattern === '/checkout'
          ? { ...p, forms: [...p.forms, forms.coupon] }
          : p,
    );
    const later = suggestionCandidates(moved, computeCoverage(moved, shopTests, base));
    const coupon = (list: typeof before) => list.find((c) => c.form?.name === 'Coupon')!;
    expect(coupon(later).startPage).toBe('/checkout');
    expect(coupon(later).fingerprint).toBe(coupon(before).fingerprint);
    expect(new Set(before.map((c) => c.fingerprint)).size).toBe(before.length);
    expect(suggestionFingerprint({ patterns: ['/orders'], forms: [] })).toMatch(/^[0-9a-f]{16}$/);
  });

  it('every uncovered form gets exactly one candidate, whichever tests are enabled', () => {
    fc.assert(
      fc.property(fc.subarray(shopTests), (enabled) => {
        const c = computeCoverage(shopMap, enabled, base);
        const suggested = suggestionCandidates(shopMap, c).flatMap((s) => s.forms);
        expect(suggested.sort()).toEqual(
          c.forms
            .filter((f) => !f.covered)
            .map((f) => f.id)
            .sort(),
        );
      }),
    );
  });

  it('a page that did not load, or a detail page with no visited example, is not suggested', () => {
    const map = [
      { pattern: '/broken', example: '/broken', depth: 1, status: 500, forms: [] },
      { pattern: '/items/{id}', depth: 1, forms: [] },
      { pattern: '/far/away', example: '/far/away', depth: 6, linksIn: 1, forms: [] },
      { pattern: '/reports', example: '/reports', depth: 3, linksIn: 4, forms: [] },
    ];
    expect(suggestionCandidates(map, computeCoverage(map, [], base)).map((c) => c.startPage)).toEqual(['/reports']);
  });
});

describe('what a discovery finds new since the previous one', () => {
  /** A page far from the start that few pages link to: not important enough to suggest by itself. */
  const deepPage = (i: number, withForm: boolean): MapPattern => ({
    pattern: `/archive/section-${'abcdefghij'[i]}`,
    example: `/archive/section-${'abcdefghij'[i]}`,
    depth: 3 + i,
    linksIn: 1,
    status: 200,
    forms: withForm
      ? [
          {
            key: `note-${i}:text`,
            name: `Note ${i}`,
            method: 'post',
            action: `/archive/notes-${i}`,
            fields: [{ label: `Text ${i}`, name: `text${i}`, type: 'text', required: true }],
            submit: 'Save',
            search: false,
          },
        ]
      : [],
  });

  it('each new page or form no test covers is a candidate however deep, never cut by max; the rest keep the rules', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ withForm: fc.boolean(), fresh: fc.boolean() }), { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 0, max: 4 }),
        (pages, max) => {
          const deep = pages.map((p, i) => deepPage(i, p.withForm));
          const map = [...shopMap, ...deep];
          const c = computeCoverage(map, shopTests, base);
          const freshPages = deep.filter((_, i) => pages[i]!.fresh);
          const fresh = {
            patterns: new Set(freshPages.map((p) => p.pattern)),
            forms: new Set(freshPages.flatMap((p) => p.forms.map(formId))),
          };
          const candidates = suggestionCandidates(map, c, { max, fresh });
          const isFresh = (s: (typeof candidates)[number]) =>
            s.forms.some((f) => fresh.forms.has(f)) || (s.kind === 'page' && fresh.patterns.has(s.patterns[0]!));
          // Each new page: one candidate, for its form when it has one, else for the page.
          for (const p of freshPages) {
            const mine = candidates.filter((s) => s.patterns[0] === p.pattern);
            expect(mine.map((s) => (s.kind === 'form' ? s.forms : s.patterns))).toEqual([
              p.forms.length ? p.forms.map(formId) : [p.pattern],
            ]);
          }
          // An old deep page without a form is not suggested; the old candidates are the best `max` of them.
          const old = deep.filter((p, i) => !pages[i]!.fresh && p.forms.length === 0);
          for (const p of old) expect(candidates.some((s) => s.patterns.includes(p.pattern))).toBe(false);
          const without = suggestionCandidates(map, c, { max: 1_000 }).filter((s) => !isFresh(s));
          const keep = Math.max(0, max - candidates.filter(isFresh).length);
          expect(candidates.filter((s) => !isFresh(s))).toEqual(without.slice(0, keep));
        },
      ),
    );
  });

  it('a new one that was rejected before (a form back after a release) is not proposed again', () => {
    const page = deepPage(0, true);
    const map = [...shopMap, page];
    const fresh = { patterns: new Set([page.pattern]), forms: new Set(page.forms.map(formId)) };
    const c = computeCoverage(map, shopTests, base);
    const [note] = suggestionCandidates(map, c, { fresh }).filter((s) => s.patterns[0] === page.pattern);
    expect(note!.forms).toEqual([formId(page.forms[0]!)]);
    const known = new Set([note!.fingerprint]);
    expect(suggestionCandidates(map, c, { fresh, known }).some((s) => s.patterns[0] === page.pattern)).toBe(false);
  });
});

describe('plain-words wording', () => {
  const [coupon, , search, orders] = suggestionCandidates(shopMap, coverage);
  it('says what to fill and press, what must show, and why, naming why the model did not write it', () => {
    expect(defaultWording(coupon!, "the project's daily LLM budget is spent")).toEqual({
      name: 'Submit "Coupon" on /cart',
      goal: 'Open /cart, fill in the "Coupon" form (Coupon code) with valid values and submit it with "Apply".',
      expectedResult: 'The form is accepted: the page confirms it and shows no error',
      reason:
        "No enabled test fills or submits this POST form. (written without the model: the project's daily LLM budget is spent)",
    });
    expect(defaultWording(search!).name).toBe('Search with "Search" on /');
    expect(defaultWording(orders!)).toMatchObject({
      name: 'Open Orders',
      reason: 'No enabled test visits "Orders" (/orders).',
    });
  });
});
