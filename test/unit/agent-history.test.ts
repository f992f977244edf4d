import { describe, expect, it } from 'vitest';
import { foldHistory } from '../../src/llm/agent-prompt.js';

// A long burn-in's history folds its oldest lines into one before the page's share of the prompt shrinks
// (src/llm/agent-prompt.ts); the last five lines are always whole.

const history = Array.from(
  { length: 20 },
  (_, i) => `${i + 1}. ${i % 3 === 0 ? 'fill' : 'click'} getByRole('button', { name: 'Control ${i + 1}' }) ✓`,
);
const chars = (limit: number) => (lines: string[]) => lines.join('\n').length <= limit;

describe('history folding', () => {
  it('keeps a history that fits as it is', () => {
    expect(foldHistory(history, () => true)).toBe(history);
  });

  it('folds the fewest oldest lines that make it fit, counted by action, and keeps the rest whole', () => {
    const folded = foldHistory(history, chars(700));
    expect(folded.join('\n').length).toBeLessThanOrEqual(700);
    const n = 20 - (folded.length - 1);
    expect(folded[0]).toMatch(new RegExp(`^1–${n}\\. earlier: fill ×\\d+, click ×\\d+$`));
    expect(folded.slice(1)).toEqual(history.slice(n));
    // One line fewer folded would not have fitted.
    expect(chars(700)([`1–${n - 1}. earlier: fill ×9, click ×9`, ...history.slice(n - 1)])).toBe(false);
  });

  it('never folds the last five lines, however small the budget', () => {
    const folded = foldHistory(history, chars(10));
    expect(folded).toHaveLength(6);
    expect(folded[0]).toBe('1–15. earlier: fill ×5, click ×10');
    expect(folded.slice(1)).toEqual(history.slice(15));
  });
});
