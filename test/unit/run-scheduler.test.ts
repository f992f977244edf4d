import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Outcome, type RunNode } from '../../src/domain/run-plan.js';
import { RunScheduler } from '../../src/domain/run-scheduler.js';

// The incremental scheduler against the full scan it replaced (kept here as the oracle, verbatim): over generated
// plans (chains, diamonds, resume-from, duplicate and unknown dependencies, names or none), random outcomes, random
// finishing orders, concurrency and continue-as-new points, both give the same skips with the same reasons and
// start the same tests in the same order. That is what lets recorded plan-run histories replay unchanged.

interface Decision {
  ready: string[];
  skip: { testCaseId: string; reason: string }[];
}

function decide(nodes: RunNode[], outcomes: ReadonlyMap<string, Outcome>, started: ReadonlySet<string>): Decision {
  const decision: Decision = { ready: [], skip: [] };
  const names = new Map(nodes.map((n) => [n.testCaseId, n.name]));
  const label = (id: string) => (names.get(id) ? `"${names.get(id)}"` : id);
  for (const node of nodes) {
    if (started.has(node.testCaseId) || outcomes.has(node.testCaseId)) continue;
    const deps = [...(node.resumeFrom ? [node.resumeFrom] : []), ...node.waitFor];
    const failed = deps.find((d) => outcomes.has(d) && outcomes.get(d) !== 'PASSED');
    if (failed) {
      const kind = failed === node.resumeFrom ? 'resume-from' : 'wait-for';
      decision.skip.push({
        testCaseId: node.testCaseId,
        reason: `${kind} dependency ${label(failed)} ended ${outcomes.get(failed)}`,
      });
    } else if (deps.every((d) => outcomes.get(d) === 'PASSED')) {
      decision.ready.push(node.testCaseId);
    }
  }
  return decision;
}

type Event = string;
interface Driver {
  toSkip(): Decision['skip'];
  skipped(skip: Decision['skip']): void;
  take(limit: number): string[];
  ended(id: string, outcome: Outcome): void;
  outcomes(): Map<string, Outcome>;
}

const oracle = (nodes: RunNode[], carried: Map<string, Outcome>): Driver => {
  const outcomes = new Map(carried);
  const started = new Set<string>();
  return {
    toSkip: () => decide(nodes, outcomes, started).skip,
    skipped: (skip) => skip.forEach((s) => outcomes.set(s.testCaseId, 'SKIPPED')),
    take: (limit) => {
      const ready = decide(nodes, outcomes, started).ready.slice(0, Math.max(0, limit));
      ready.forEach((id) => started.add(id));
      return ready;
    },
    ended: (id, outcome) => outcomes.set(id, outcome),
    outcomes: () => outcomes,
  };
};
const incremental = (nodes: RunNode[], carried: Map<string, Outcome>): Driver => {
  const scheduler = new RunScheduler(nodes, carried);
  return {
    toSkip: () => scheduler.toSkip(),
    skipped: (skip) => skip.forEach((s) => scheduler.ended(s.testCaseId, 'SKIPPED')),
    take: (limit) => scheduler.take(limit),
    ended: (id, outcome) => scheduler.ended(id, outcome),
    outcomes: () => scheduler.outcomes,
  };
};

/**
 * The planRun workflow's loop with a scripted world: `pick` chooses which running test ends next, `outcomeOf` how.
 * Stops (as a continue-as-new would, after draining) once `stopAfter` tests finished; returns the events.
 */
function simulate(
  driver: Driver,
  nodes: RunNode[],
  opts: { concurrency: number; outcomeOf: (id: string) => Outcome; pick: (n: number) => number; stopAfter: number },
): Event[] {
  const events: Event[] = [];
  const running: string[] = [];
  for (let guard = 0; guard < 10 * nodes.length + 10; guard++) {
    if (driver.outcomes().size >= nodes.length) return events;
    const skip = driver.toSkip();
    if (skip.length > 0) {
      events.push(...skip.map((s) => `skip ${s.testCaseId}: ${s.reason}`));
      driver.skipped(skip);
      continue;
    }
    const draining = driver.outcomes().size >= opts.stopAfter;
    if (draining && running.length === 0) return [...events, 'carry'];
    if (!draining) {
      for (const id of driver.take(opts.concurrency - running.length)) {
        running.push(id);
        events.push(`start ${id}`);
      }
    }
    if (running.length === 0) return [...events, 'stuck'];
    const [id] = running.splice(opts.pick(running.length), 1);
    driver.ended(id!, opts.outcomeOf(id!));
    events.push(`end ${id} ${opts.outcomeOf(id!)}`);
  }
  return [...events, 'guard'];
}

const outcomesArb = fc.constantFrom<Outcome>('PASSED', 'PASSED', 'PASSED', 'FAILED', 'ERROR', 'CANCELLED');
const planArb = fc.integer({ min: 1, max: 40 }).chain((size) =>
  fc.tuple(
    fc.array(
      fc.record({
        // Dependencies on earlier tests (a DAG), sometimes repeated; now and then one outside the plan.
        waitFor: fc.array(fc.integer({ min: 0, max: size }), { maxLength: 3 }),
        resumeFrom: fc.option(fc.integer({ min: 0, max: size }), { nil: undefined }),
        named: fc.boolean(),
        outcome: outcomesArb,
      }),
      { minLength: size, maxLength: size },
    ),
    fc.integer({ min: 1, max: 6 }),
    fc.array(fc.nat(), { minLength: 200, maxLength: 200 }),
    fc.integer({ min: 0, max: size }),
  ),
);

function buildPlan(specs: { waitFor: number[]; resumeFrom?: number; named: boolean }[]): RunNode[] {
  const id = (i: number) => `t${i}`;
  return specs.map((s, i) => ({
    testCaseId: id(i),
    name: s.named ? `Test ${i}` : undefined,
    // j < i keeps it acyclic; j === size names a test outside the plan; otherwise fold into an earlier test.
    waitFor: s.waitFor
      .filter((j) => j !== i)
      .map((j) => (j === specs.length ? 'outside' : id(j % Math.max(1, i))))
      .filter((d) => d !== id(i)),
    resumeFrom:
      s.resumeFrom === undefined || i === 0
        ? undefined
        : s.resumeFrom === specs.length
          ? 'outside'
          : id(s.resumeFrom % i),
  }));
}

describe('incremental run scheduling', () => {
  it('decides exactly as the full scan did, through whole runs and continue-as-new chains', () => {
    fc.assert(
      fc.property(planArb, ([specs, concurrency, picks, stopAfter]) => {
        const nodes = buildPlan(specs);
        const outcomeOf = (id: string) => specs[Number(id.slice(1))]!.outcome;
        const run = (make: (n: RunNode[], c: Map<string, Outcome>) => Driver) => {
          let i = 0;
          const pick = (n: number) => picks[i++ % picks.length]! % n;
          const first = make(nodes, new Map());
          const events = simulate(first, nodes, { concurrency, outcomeOf, pick, stopAfter });
          // The next run of the chain starts from the carried outcomes only.
          const second = make(nodes, new Map(first.outcomes()));
          return [...events, ...simulate(second, nodes, { concurrency, outcomeOf, pick, stopAfter: Infinity })];
        };
        expect(run(incremental)).toEqual(run(oracle));
      }),
      { numRuns: 400 },
    );
  });
});
