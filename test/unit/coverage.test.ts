import { describe, expect, it } from 'vitest';
import { actsOnForm, computeCoverage, formId, type Coverage } from '../../src/domain/coverage.js';
import { coveredTests } from '../../src/domain/coverage-tests.js';
import type { Step } from '../../src/domain/steps.js';
import { base, buy, forms, shopMap, shopTests, signIn } from '../support/coverage-fixture.js';

// Issue 34's coverage map, on a map and three tests written by hand (test/support/coverage-fixture.ts). Every
// number below was counted by hand from the fixture; the comments say how.

const t1 = signIn.lastPassedAt;
const t2 = buy.lastPassedAt;

describe('the coverage map of a hand-written shop', () => {
  const coverage: Coverage = computeCoverage(shopMap, shopTests, base);
  const pattern = (p: string) => {
    const found = coverage.patterns.find((c) => c.pattern === p);
    if (!found) throw new Error(`no pattern ${p}`);
    return {
      visited: found.visitedBy.map((u) => [u.testId, u.steps]),
      acted: found.actedOnBy.map((u) => [u.testId, u.steps]),
      asserted: found.assertedBy.map((u) => [u.testId, u.steps]),
      lastPassedAt: found.lastPassedAt,
      covered: found.covered,
    };
  };
  const form = (id: string) => {
    const found = coverage.forms.find((f) => f.id === id);
    if (!found) throw new Error(`no form ${id}`);
    return {
      acted: found.actedOnBy.map((u) => [u.testId, u.steps]),
      submitted: found.submittedBy.map((u) => u.testId),
      asserted: found.assertedBy.map((u) => [u.testId, u.steps]),
      lastPassedAt: found.lastPassedAt,
      covered: found.covered,
    };
  };

  it('counts 9 patterns: 7 visited, 2 not (the home page, the order list); 5 acted on, 4 asserted on', () => {
    expect(coverage.totals.patterns).toEqual({ total: 9, covered: 7, uncovered: 2, actedOn: 5, asserted: 4 });
    expect(coverage.patterns.filter((p) => !p.covered).map((p) => p.pattern)).toEqual(['/', '/orders']);
  });

  it('counts 7 forms (the header search once, on its 3 patterns): 4 acted on, 3 not; 3 submitted, 4 checked', () => {
    expect(coverage.totals.forms).toEqual({ total: 7, covered: 4, uncovered: 3, submitted: 3, asserted: 4 });
    expect(coverage.forms.filter((f) => !f.covered).map((f) => f.name)).toEqual(['Search', 'Coupon', 'Profile']);
    expect(coverage.forms.find((f) => f.name === 'Search')!.patterns).toEqual(['/', '/products', '/products/{id}']);
  });

  it('an old test without `at`: its steps are on the start page until an URL assertion names the next', () => {
    // t1 starts on /login: fill, fill, click there; assert_url '/products' moves it, the heading check stays.
    expect(pattern('/login')).toEqual({
      visited: [['t1', [0, 1, 2]]],
      acted: [['t1', [0, 1, 2]]],
      asserted: [],
      lastPassedAt: t1,
      covered: true,
    });
    expect(pattern('/products')).toEqual({
      visited: [['t1', [3, 4]]],
      acted: [],
      asserted: [['t1', [3, 4]]],
      lastPassedAt: t1,
      covered: true,
    });
  });

  it('a test recorded with `at`: each step on the page it was performed on', () => {
    // t2 never acts on its start page (/): its first step navigates away.
    expect(pattern('/')).toEqual({ visited: [], acted: [], asserted: [], lastPassedAt: null, covered: false });
    expect(pattern('/products/{id}')).toEqual({
      visited: [['t2', [0, 1, 2]]],
      acted: [['t2', [1, 2]]],
      asserted: [],
      lastPassedAt: t2,
      covered: true,
    });
    expect(pattern('/cart')).toEqual({
      visited: [['t2', [3, 4]]],
      acted: [['t2', [4]]],
      asserted: [],
      lastPassedAt: t2,
      covered: true,
    });
    expect(pattern('/checkout')).toEqual({
      visited: [['t2', [5, 6, 7]]],
      acted: [['t2', [5, 6]]],
      asserted: [['t2', [7]]],
      lastPassedAt: t2,
      covered: true,
    });
  });

  it('a resumed test that never passed: Back returns to the order, a page off the map is listed apart', () => {
    // t3: steps 0, 1 on /orders/7 (its start), 2-3 on /settings, Back (4) and the check (5) on the order again.
    expect(pattern('/orders/{id}')).toEqual({
      visited: [['t3', [0, 1, 4, 5]]],
      acted: [['t3', [0, 1]]],
      asserted: [['t3', [5]]],
      lastPassedAt: null,
      covered: true,
    });
    expect(pattern('/settings')).toEqual({
      visited: [['t3', [2, 3]]],
      acted: [],
      asserted: [['t3', [3]]],
      lastPassedAt: null,
      covered: true,
    });
    expect(pattern('/orders')).toEqual({ visited: [], acted: [], asserted: [], lastPassedAt: null, covered: false });
    expect(coverage.outsideMap).toEqual([{ pattern: '/help', testIds: ['t3'] }]);
  });

  it('forms: acted on through a field or the submit control, checked by an assertion after', () => {
    expect(form(formId(forms.login))).toEqual({
      acted: [['t1', [0, 1, 2]]],
      submitted: ['t1'],
      asserted: [['t1', [3, 4]]],
      lastPassedAt: t1,
      covered: true,
    });
    // The quantity by its `name` attribute, the submit control by a fallback locator's name.
    expect(form(formId(forms.addToCart))).toEqual({
      acted: [['t2', [1, 2]]],
      submitted: ['t2'],
      asserted: [['t2', [7]]],
      lastPassedAt: t2,
      covered: true,
    });
    // Two of three fields, never submitted: acted on all the same.
    expect(form(formId(forms.checkout))).toEqual({
      acted: [['t2', [5, 6]]],
      submitted: [],
      asserted: [['t2', [7]]],
      lastPassedAt: t2,
      covered: true,
    });
    expect(form(formId(forms.note))).toEqual({
      acted: [['t3', [0, 1]]],
      submitted: ['t3'],
      asserted: [['t3', [3, 5]]],
      lastPassedAt: null,
      covered: true,
    });
    // t3 visits the settings but leaves the profile form alone; nobody touches the coupon or the search.
    for (const untouched of [forms.profile, forms.coupon, forms.search])
      expect(form(formId(untouched))).toEqual({
        acted: [],
        submitted: [],
        asserted: [],
        lastPassedAt: null,
        covered: false,
      });
  });

  it('without tests nothing is covered; the map alone gives the totals', () => {
    const none = computeCoverage(shopMap, [], base);
    expect(none.totals).toEqual({
      patterns: { total: 9, covered: 0, uncovered: 9, actedOn: 0, asserted: 0 },
      forms: { total: 7, covered: 0, uncovered: 7, submitted: 0, asserted: 0 },
    });
  });

  it('a step on another origin (a payment page) counts on no pattern of the map', () => {
    const paid = {
      ...buy,
      id: 't4',
      steps: [
        {
          action: 'click',
          locator: "getByLabel('Name')",
          description: 'Pay',
          at: 'https://pay.example.test/checkout',
        } satisfies Step,
      ],
    };
    const c = computeCoverage(shopMap, [paid], base);
    expect(c.totals.patterns.covered).toBe(0);
    expect(c.outsideMap).toEqual([]);
  });
});

describe('a step acts on a form when it names one of its fields or its submit control', () => {
  const fill = (locator: string, extra: Partial<Step> = {}): Step => ({
    action: 'fill',
    locator,
    value: 'x',
    description: 'x',
    ...extra,
  });
  it.each([
    ['its label', fill("getByLabel('Card number')"), 'field'],
    ['its label with a required mark, in another case', fill("getByLabel('CARD NUMBER')"), 'field'],
    ['its role and name', fill("getByRole('textbox', { name: 'Address' })"), 'field'],
    ['its name attribute', fill('locator(\'input[name="card"]\')'), 'field'],
    ['its recorded target', fill("getByTestId('x1')", { target: { role: 'textbox', name: 'Name' } }), 'field'],
    ['its placeholder', fill("getByPlaceholder('Address')"), 'field'],
    [
      'the submit control, clicked',
      { action: 'click', locator: "getByRole('button', { name: 'Place order' })", description: 'x' } satisfies Step,
      'submit',
    ],
    ['another field', fill("getByLabel('Coupon code')"), undefined],
    [
      'the submit control, only hovered',
      { action: 'hover', locator: "getByRole('button', { name: 'Place order' })", description: 'x' } satisfies Step,
      undefined,
    ],
    [
      'an assertion on a field',
      { action: 'assert_visible', locator: "getByLabel('Name')", description: 'x' } satisfies Step,
      undefined,
    ],
  ] as const)('%s', (_, step, expected) => {
    expect(actsOnForm(step, forms.checkout)).toBe(expected);
  });
});

describe('where a stored test starts', () => {
  const row = (id: string, steps: Step[] | null, resumeFromId: string | null = null, enabled = true) => ({
    id,
    name: id,
    enabled,
    steps,
    resumeFromId,
    lastPassedAt: null,
  });
  const go = (path: string): Step => ({ action: 'navigate', value: path, description: path });
  it('on the environment, or where its dependency chain ends; a cycle or a missing dependency falls back', () => {
    const tests = coveredTests(
      [
        row('a', [go('/login')]),
        row('b', [go('/orders/7')], 'a', false),
        row('c', [go('/x')], 'b'),
        row('d', [go('/y')], 'gone'),
        row('e', [go('/e')], 'f'),
        row('f', [go('/f')], 'e'),
        row('g', null),
      ],
      `${base}/app`,
    );
    expect(tests.map((t) => [t.id, t.startUrl])).toEqual([
      ['a', `${base}/app`],
      ['c', `${base}/orders/7`],
      ['d', `${base}/app`],
      ['e', `${base}/app`],
      ['f', `${base}/app`],
    ]);
  });
});
