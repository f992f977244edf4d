// A plan run's graph, its result and its carried outcomes; what runs next is src/domain/run-scheduler.ts's.

export interface RunNode {
  testCaseId: string;
  /** For messages a user reads (skip reasons). */
  name?: string;
  /** Starts from this test's final browser state, after it passed. */
  resumeFrom?: string | null;
  /** Runs only if every one of these passed. */
  waitFor: string[];
  /** Runs and reports, but its failure fails neither the run nor a review (src/domain/flakiness.ts). */
  quarantined?: boolean;
}

export type Outcome = 'PASSED' | 'FAILED' | 'SKIPPED' | 'ERROR' | 'CANCELLED';

/** PASSED only if every executed test passed; a run whose tests were all skipped is SKIPPED. */
export function runResult(outcomes: Iterable<Outcome>): 'PASSED' | 'FAILED' | 'SKIPPED' {
  const all = [...outcomes];
  if (all.some((o) => o === 'FAILED' || o === 'ERROR' || o === 'CANCELLED')) return 'FAILED';
  if (all.some((o) => o === 'PASSED')) return all.every((o) => o === 'PASSED') ? 'PASSED' : 'FAILED';
  return 'SKIPPED';
}

/**
 * The run's result when quarantined tests do not count against it: a quarantined test that did not pass is left
 * out, and so is a test skipped only because such a test (or another test left out) did not pass. What is left
 * decides as `runResult`; a run whose every test was left out is SKIPPED (nothing that counts was verified).
 */
export function planRunResult(
  nodes: readonly RunNode[],
  outcomes: ReadonlyMap<string, Outcome>,
): 'PASSED' | 'FAILED' | 'SKIPPED' {
  const excused = excusedTests(nodes, outcomes);
  return runResult(
    nodes
      .filter((n) => !excused.has(n.testCaseId) && outcomes.has(n.testCaseId))
      .map((n) => outcomes.get(n.testCaseId)!),
  );
}

function excusedTests(nodes: readonly RunNode[], outcomes: ReadonlyMap<string, Outcome>): Set<string> {
  const excused = new Set(
    nodes
      .filter((n) => n.quarantined && outcomes.has(n.testCaseId) && outcomes.get(n.testCaseId) !== 'PASSED')
      .map((n) => n.testCaseId),
  );
  if (excused.size === 0) return excused;
  // Skips follow dependencies, which may come in any order: repeat until nothing more is excused.
  for (let grew = true; grew;) {
    grew = false;
    for (const node of nodes) {
      if (excused.has(node.testCaseId) || outcomes.get(node.testCaseId) !== 'SKIPPED') continue;
      const blocking = [...(node.resumeFrom ? [node.resumeFrom] : []), ...node.waitFor].filter(
        (d) => outcomes.has(d) && outcomes.get(d) !== 'PASSED',
      );
      if (blocking.length > 0 && blocking.every((d) => excused.has(d))) {
        excused.add(node.testCaseId);
        grew = true;
      }
    }
  }
  return excused;
}

// A 10,000-test run hands its outcomes to the next run of its chain (continue-as-new) as one letter per test
// in plan order: ~10 KB where a map keyed by test case id would be ~0.5 MB of workflow input.
const outcomeLetters: Record<Outcome, string> = { PASSED: 'P', FAILED: 'F', SKIPPED: 'S', ERROR: 'E', CANCELLED: 'C' };
const outcomeOfLetter = new Map(
  Object.entries(outcomeLetters).map(([outcome, letter]) => [letter, outcome as Outcome]),
);

export function encodeOutcomes(nodes: readonly RunNode[], outcomes: ReadonlyMap<string, Outcome>): string {
  return nodes
    .map((n) => {
      const outcome = outcomes.get(n.testCaseId);
      return outcome ? outcomeLetters[outcome] : '-';
    })
    .join('');
}

/** The outcomes encodeOutcomes wrote for the same nodes in the same order; throws when they do not fit. */
export function decodeOutcomes(nodes: readonly RunNode[], encoded: string): Map<string, Outcome> {
  if (encoded.length !== nodes.length)
    throw new Error(`carried outcomes are for ${encoded.length} tests, the plan has ${nodes.length}`);
  const outcomes = new Map<string, Outcome>();
  nodes.forEach((n, i) => {
    const letter = encoded[i]!;
    if (letter === '-') return;
    const outcome = outcomeOfLetter.get(letter);
    if (!outcome) throw new Error(`unknown outcome letter ${JSON.stringify(letter)} in carried outcomes`);
    outcomes.set(n.testCaseId, outcome);
  });
  return outcomes;
}
