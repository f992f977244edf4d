import { describe, expect, it } from 'vitest';
import { summaryReservations } from '../../src/llm/reservations.js';

// A burn-in agent that writes its reservation in the summary, not in notCovered, still leaves it on the test case.

describe('reservations read from a done summary', () => {
  it('keeps each sentence that says part of the goal was not verified', () => {
    expect(
      summaryReservations('Clicked "Download invoice" and saw "Download started". The file itself was not checked.'),
    ).toEqual(['The file itself was not checked']);
    expect(summaryReservations("Signed in; couldn't verify the confirmation email; the dashboard loaded.")).toEqual([
      "couldn't verify the confirmation email",
    ]);
    expect(summaryReservations('Order placed. I could not confirm the order appears in the history! Done.')).toEqual([
      'I could not confirm the order appears in the history!',
    ]);
  });

  it('keeps nothing from a summary without a reservation, or without one', () => {
    for (const summary of [
      'Goal reached and asserted',
      'Signed in without errors and added the mug',
      'The total was checked: 60.50',
      'Nothing was left out',
      '',
      undefined,
    ]) {
      expect(summaryReservations(summary), String(summary)).toEqual([]);
    }
  });
});
