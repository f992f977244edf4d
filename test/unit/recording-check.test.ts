import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { msUntilFreshTotp, replayFailureNote } from '../../src/domain/recording-check.js';
import type { Step } from '../../src/domain/steps.js';

// The rules of the verifying replay (issue 32) that need no browser.

const fillCode: Step = {
  action: 'fill',
  locator: "getByRole('textbox', { name: 'Code' })",
  value: '{{AUTH_TOTP}}',
  description: 'Enter the code',
};
const click: Step = { action: 'click', locator: "getByRole('button', { name: 'Go' })", description: 'Go' };

describe('msUntilFreshTotp', () => {
  it('waits into the next period of a TOTP config a step types, whenever it is asked', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 0, max: 4_000_000_000_000 }), (period, now) => {
        const wait = msUntilFreshTotp([click, fillCode], { AUTH_TOTP: period }, now);
        // After the wait a new code is current, and never more than a period (and the margin) later.
        expect(Math.floor((now + wait) / 1000 / period)).toBeGreaterThan(Math.floor(now / 1000 / period));
        expect(wait).toBeLessThanOrEqual(period * 1000 + 250);
      }),
    );
  });

  it('does not wait when no step types a TOTP code, unless a resume-from chain may (the names passed as always)', () => {
    expect(msUntilFreshTotp([click], { AUTH_TOTP: 30 }, 1_000)).toBe(0);
    expect(msUntilFreshTotp([click], {}, 1_000)).toBe(0);
    expect(msUntilFreshTotp([click], { AUTH_TOTP: 30 }, 1_000, ['AUTH_TOTP'])).toBe(29_250);
  });
});

describe('replayFailureNote', () => {
  it('tells the agent the 1-based failing step, the error, and which steps are kept', () => {
    expect(replayFailureNote({ failedStepIndex: 1, error: 'step 2 (click): no element matches' })).toMatch(
      /^the recorded steps were replayed in a fresh browser and failed at step 2: step 2 \(click\): no element matches\. Steps 1-1 replayed and are kept/,
    );
    expect(replayFailureNote({ failedStepIndex: 0, error: 'step 1 (click): click failed' })).toContain(
      'failed at step 1: step 1 (click): click failed. No step before it is kept (this is the start page); record the rest again from here',
    );
  });
});
