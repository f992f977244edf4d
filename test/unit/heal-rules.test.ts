import { describe, expect, it } from 'vitest';
import { maxLocatorsPerStep, withLocatorInFront, type Step } from '../../src/domain/steps.js';
import { recordedIntent, refuseHeal } from '../../src/llm/heal-rules.js';

const click: Step = {
  action: 'click',
  locator: "getByRole('button', { name: 'Sign in' })",
  fallbacks: [],
  target: { role: 'button', name: 'Sign in' },
  description: 'Sign in',
};
const confirmation: Step = {
  action: 'assert_visible',
  locator: "getByText('Gruppe „QA Team“ wurde erfolgreich hinzugefügt.')",
  target: { role: 'status', name: 'Gruppe „QA Team“ wurde erfolgreich hinzugefügt.' },
  description: 'The group was added',
};

describe('what a heal may change', () => {
  it('lets an action re-find its element under another name, with the same role and a reason', () => {
    expect(
      refuseHeal(click, { role: 'button', name: 'Anmelden', text: 'Anmelden' }, 'submit button of the form'),
    ).toBeUndefined();
    expect(refuseHeal(click, { role: 'link', name: 'Anmelden', text: 'Anmelden' }, 'same purpose')).toMatch(
      /is a link .* recorded on a button "Sign in"/,
    );
    expect(refuseHeal(click, { role: 'button', name: 'Anmelden', text: '' }, '  ')).toMatch(/no reason/);
  });

  it('never lets an assertion point at other text: an error in place of the confirmation is refused', () => {
    const exists = 'Gruppe existiert bereits';
    expect(refuseHeal(confirmation, { role: 'alert', name: exists, text: exists }, 'the only message')).toMatch(
      /is a alert/,
    );
    expect(refuseHeal(confirmation, { role: 'status', name: exists, text: exists }, 'same status line')).toMatch(
      /expectation cannot change/,
    );
    // The same message found by another route (a wrapper, a moved node) is a heal it may take.
    expect(
      refuseHeal(
        confirmation,
        { role: 'status', text: 'Gruppe „QA Team“ wurde  erfolgreich hinzugefügt. Sie können sie bearbeiten.' },
        'same message',
      ),
    ).toBeUndefined();
  });

  it('reads the intent of steps recorded before targets were kept from their locator', () => {
    expect(
      recordedIntent({ action: 'click', locator: "getByRole('link', { name: 'Cart (1)' })", description: '' }),
    ).toEqual({ role: 'link', name: 'Cart (1)' });
    expect(recordedIntent({ action: 'assert_visible', locator: "getByText('Saved')", description: '' })).toEqual({
      name: 'Saved',
    });
    expect(
      refuseHeal(
        { action: 'assert_visible', locator: "getByText('Saved')", description: '' },
        { role: 'alert', text: 'Not saved: name taken' },
        'message',
      ),
    ).toMatch(/expectation/);
  });
});

describe('heals add, never replace', () => {
  it('puts the healed locator in front and keeps the recorded ones, bounded, without duplicates', () => {
    const healed = withLocatorInFront(
      { ...click, fallbacks: ["locator('#login')"] },
      "getByRole('button', { name: 'Anmelden' })",
    );
    expect(healed.locator).toBe("getByRole('button', { name: 'Anmelden' })");
    expect(healed.fallbacks).toEqual(["getByRole('button', { name: 'Sign in' })", "locator('#login')"]);
    const back = withLocatorInFront(healed, "getByRole('button', { name: 'Sign in' })");
    expect(back.fallbacks).toEqual(["getByRole('button', { name: 'Anmelden' })", "locator('#login')"]);
    let many = click;
    for (let i = 0; i < 10; i++) many = withLocatorInFront(many, `getByRole('button', { name: 'Variant ${i}' })`);
    expect([many.locator, ...many.fallbacks!]).toHaveLength(maxLocatorsPerStep);
    expect(many.locator).toBe("getByRole('button', { name: 'Variant 9' })");
  });
});
