import { describe, expect, it } from 'vitest';
import { parseTargetLine } from '../../src/browser/record/record.js';
import {
  compareTarget,
  expectationOf,
  sharesWord,
  showsExpectation,
  showsText,
} from '../../src/domain/target-check.js';
import type { Step } from '../../src/domain/steps.js';

// The rules replay applies to every element it uses (src/domain/target-check.ts), as generated matrices: which
// text shows an expectation, and which differences between the recorded and the found element are regressions.

const expectations = [
  'Saved',
  'The group “QA Team” was added',
  'Total: 10 €',
  'Download started: invoice-2026-001.pdf',
];

describe('an expectation is shown whole, never by a prefix, a longer word or other digits', () => {
  for (const expected of expectations) {
    it(`"${expected}"`, () => {
      const shownBy = [
        expected,
        `  ${expected.replace(/ /g, '\n ')} `,
        `✓ ${expected}`,
        `${expected} ×`,
        `Notice: ${expected}. Undo`,
      ];
      for (const shown of shownBy) expect(showsText(shown, expected), shown).toBe(true);
      const notShownBy = [
        expected.slice(0, Math.ceil(expected.length * 0.6)),
        // A longer word is another word (where the expectation ends in a letter or digit: "10 €x" still shows "10 €").
        ...(/[\p{L}\p{N}]$/u.test(expected) ? [`${expected}x`] : []),
        `x${expected}`,
        expected.toLowerCase() === expected ? expected.toUpperCase() : expected.toLowerCase(),
        expected.replace(/\d/g, (d) => String((Number(d) + 1) % 10)),
        '',
      ].filter((s) => s !== expected);
      for (const shown of notShownBy) expect(showsText(shown, expected), shown).toBe(false);
    });
  }
});

describe('the expectation of an assertion', () => {
  it('is the name, else the text a text locator names, else the whole recorded text; quoted names lose their quotes', () => {
    const base: Step = { action: 'assert_visible', description: 'message' };
    expect(
      expectationOf({ ...base, locator: "getByTestId('msg')", target: { role: 'heading', name: 'Welcome' } }),
    ).toBe('Welcome');
    expect(
      expectationOf({
        ...base,
        locator: "getByText('The group was added')",
        target: { role: 'listitem', text: 'The group was added Dismiss' },
      }),
    ).toBe('The group was added');
    expect(
      expectationOf({
        ...base,
        locator: "getByTestId('msg')",
        target: { role: 'listitem', text: 'The group was added Dismiss' },
      }),
    ).toBe('The group was added Dismiss');
    // Stored before YAML quoting was undone: `- status: "Saved: ok"`.
    expect(expectationOf({ ...base, locator: "locator('#s')", target: { role: 'status', name: '"Saved: ok"' } })).toBe(
      'Saved: ok',
    );
    expect(
      showsExpectation(
        { ...base, locator: "locator('#s')", target: { role: 'status', name: '"Saved: ok"' } },
        { role: 'status', text: 'Saved: ok' },
      ),
    ).toBe(true);
  });
});

// The first line of an aria snapshot is what a recorded step keeps as its target (role and name).
describe('recorded targets read from the aria snapshot', () => {
  it.each([
    // The first line of an aria snapshot: role and name.
    ['- button "Add \\"mug\\" to cart"', { role: 'button', name: 'Add "mug" to cart' }],
    ['- status: Added Coffee mug to cart', { role: 'status', name: 'Added Coffee mug to cart' }],
    ['- link "Cart (1)":', { role: 'link', name: 'Cart (1)' }],
    ['- heading "Checkout" [level=1]', { role: 'heading', name: 'Checkout' }],
    ['- textbox', { role: 'textbox' }],
    // YAML scalars are unquoted, so the whole text is the expectation.
    ['- status: "Saved: ok"', { role: 'status', name: 'Saved: ok' }],
    ['- listitem: "Plain: \\"quoted\\" text"', { role: 'listitem', name: 'Plain: "quoted" text' }],
    ["- paragraph: 'It''s done'", { role: 'paragraph', name: "It's done" }],
    ['- button "Say \\"hi\\"": x', { role: 'button', name: 'Say "hi"' }],
    ['- listitem:', { role: 'listitem' }],
  ] as const)('reads %s as its role and name', (line, target) => {
    expect(parseTargetLine(line)).toEqual(target);
  });
});

describe('what a changed element reports', () => {
  const roles = ['button', 'checkbox', 'textbox', 'combobox', 'link'];
  const names = ['Save changes', 'Select all', 'Email address'];
  for (const role of roles) {
    for (const name of names) {
      it(`${role} "${name}"`, () => {
        const step: Step = {
          action: role === 'textbox' ? 'fill' : 'click',
          locator: "getByTestId('x')",
          target: { role, name },
          description: 'act',
        };
        expect(compareTarget(0, step, { role, name, text: '' })).toEqual([]);
        // Counts and case in a label are not a change ("Cart (2)" / "Cart (3)").
        expect(
          compareTarget(0, step, { role, name: `${name.toUpperCase()} (3)`.replace(' (3)', ''), text: '' }),
        ).toEqual([]);
        const lost = compareTarget(0, step, { role, text: '' });
        expect(lost).toEqual([
          {
            stepIndex: 0,
            field: 'name',
            from: name,
            to: null,
            severity: 'regression',
            summary: `the ${role} "${name}" lost its accessible name`,
          },
        ]);
        const generic = compareTarget(0, step, { role: 'generic', name, text: '' });
        expect(generic).toMatchObject([{ field: 'role', from: role, to: 'generic', severity: 'regression' }]);
        expect(compareTarget(0, step, { role, name: `${name} now`, text: '' })).toMatchObject([
          { field: 'name', severity: 'cosmetic' },
        ]);
        expect(compareTarget(0, step, { role, name: 'Close account', text: '' })).toMatchObject([
          { field: 'name', severity: 'regression', to: 'Close account' },
        ]);
      });
    }
  }

  it("leaves an assertion's name to its expectation check, and a step without a recorded element alone", () => {
    const assertion: Step = {
      action: 'assert_visible',
      locator: "getByTestId('x')",
      target: { role: 'heading', name: 'Welcome' },
      description: 'see',
    };
    expect(compareTarget(0, assertion, { role: 'heading', name: 'Goodbye', text: 'Goodbye' })).toEqual([]);
    expect(
      compareTarget(0, { action: 'click', locator: "locator('#x')", description: 'act' }, { role: 'button', text: '' }),
    ).toEqual([]);
  });

  it('calls labels that keep a word the same control', () => {
    expect(sharesWord('Save', 'Save changes')).toBe(true);
    expect(sharesWord('Sign in', 'Sign-in')).toBe(true);
    expect(sharesWord('Save', 'Delete account')).toBe(false);
  });
});
