import { describe, expect, it } from 'vitest';
import { decodeOutcomes, encodeOutcomes, type Outcome, type RunNode } from '../../src/domain/run-plan.js';

const nodes = (...ids: string[]): RunNode[] => ids.map((testCaseId) => ({ testCaseId, waitFor: [] }));

describe('carried outcomes (continue-as-new of a plan run)', () => {
  it('round-trips every outcome and leaves unfinished tests out', () => {
    const plan = nodes('a', 'b', 'c', 'd', 'e', 'f', 'g');
    const outcomes = new Map<string, Outcome>([
      ['a', 'PASSED'],
      ['b', 'FAILED'],
      ['c', 'SKIPPED'],
      ['e', 'ERROR'],
      ['g', 'CANCELLED'],
    ]);
    const encoded = encodeOutcomes(plan, outcomes);
    expect(encoded).toBe('PFS-E-C');
    expect(decodeOutcomes(plan, encoded)).toEqual(outcomes);
  });

  it('takes one character per test: 10,000 tests carry 10,000 characters', () => {
    const plan = nodes(
      ...Array.from({ length: 10_000 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`),
    );
    const outcomes = new Map<string, Outcome>(plan.slice(0, 6_000).map((n) => [n.testCaseId, 'PASSED']));
    const encoded = encodeOutcomes(plan, outcomes);
    expect(encoded).toHaveLength(10_000);
    expect(decodeOutcomes(plan, encoded).size).toBe(6_000);
  });

  it('refuses carried outcomes that do not fit the plan', () => {
    expect(() => decodeOutcomes(nodes('a', 'b'), 'P')).toThrow('carried outcomes are for 1 tests, the plan has 2');
    expect(() => decodeOutcomes(nodes('a', 'b'), 'PX')).toThrow('unknown outcome letter "X"');
  });
});
