// Incremental scheduling of a plan run over its dependency graph: which tests may start (every dependency passed)
// and which must be skipped (a dependency ended without passing), kept up to date as tests start and end. A test's
// end costs the number of its dependents, not the plan's size: scanning every test on each pass (as `decide` did
// before) made scheduling grow with the square of the run, 10,000 tests meaning ~10^8 checks per run.
// Same decisions as that scan, in the same order (plan order), so recorded histories replay unchanged; the
// property test in test/unit/run-scheduler.test.ts holds the two side by side over generated plans.
import type { Outcome, RunNode } from './run-plan.js';

const pending = 0;
const started = 1;
const finished = 2;

export interface Skip {
  testCaseId: string;
  reason: string;
}

export class RunScheduler {
  private readonly index = new Map<string, number>();
  /** Each test's dependencies in the order a skip reason names them (resume-from first), duplicates kept. */
  private readonly deps: string[][];
  private readonly dependents: number[][];
  /** Distinct dependencies not passed (yet): 0 means ready. */
  private readonly waiting: Int32Array;
  private readonly state: Uint8Array;
  /** What finished, and how. */
  readonly outcomes = new Map<string, Outcome>();
  private readonly ready = new MinHeap();
  /** Pending tests with a dependency that ended without passing. */
  private readonly blocked = new Set<number>();

  /** `outcomes`: what a previous run of the chain finished (continue-as-new); nothing is running. */
  constructor(
    private readonly nodes: readonly RunNode[],
    outcomes: ReadonlyMap<string, Outcome> = new Map(),
  ) {
    nodes.forEach((n, i) => this.index.set(n.testCaseId, i));
    this.deps = nodes.map((n) => [...(n.resumeFrom ? [n.resumeFrom] : []), ...n.waitFor]);
    this.dependents = nodes.map(() => []);
    this.waiting = new Int32Array(nodes.length);
    this.state = new Uint8Array(nodes.length);
    this.deps.forEach((deps, i) => {
      const distinct = new Set(deps);
      this.waiting[i] = distinct.size;
      // A dependency outside the plan never passes: the test never becomes ready, as with the full scan.
      for (const d of distinct) this.dependents[this.index.get(d) ?? -1]?.push(i);
    });
    for (const [id, outcome] of outcomes) this.finish(id, outcome, false);
    this.nodes.forEach((_, i) => {
      if (this.state[i] === pending && this.waiting[i] === 0 && !this.blocked.has(i)) this.ready.push(i);
    });
  }

  get finishedCount(): number {
    return this.outcomes.size;
  }

  /** Tests whose dependencies all passed and that were not taken yet. */
  get readyCount(): number {
    return this.ready.size;
  }

  /** The tests that can never run now, in plan order, each with the first dependency (in its order) that did not pass. */
  toSkip(): Skip[] {
    return [...this.blocked]
      .sort((a, b) => a - b)
      .map((i) => {
        const node = this.nodes[i]!;
        const failed = this.deps[i]!.find((d) => this.outcomes.has(d) && this.outcomes.get(d) !== 'PASSED')!;
        const kind = failed === node.resumeFrom ? 'resume-from' : 'wait-for';
        const name = this.nodes[this.index.get(failed)!]?.name;
        return {
          testCaseId: node.testCaseId,
          reason: `${kind} dependency ${name ? `"${name}"` : failed} ended ${this.outcomes.get(failed)}`,
        };
      });
  }

  /** Up to `limit` ready tests, first in plan order, marked started. */
  take(limit: number): string[] {
    const taken: string[] = [];
    while (taken.length < limit && this.ready.size > 0) {
      const i = this.ready.pop();
      this.state[i] = started;
      taken.push(this.nodes[i]!.testCaseId);
    }
    return taken;
  }

  /** A started test ended, or a pending one was skipped. */
  ended(testCaseId: string, outcome: Outcome): void {
    this.finish(testCaseId, outcome, true);
  }

  private finish(testCaseId: string, outcome: Outcome, live: boolean): void {
    const i = this.index.get(testCaseId);
    if (i === undefined || this.state[i] === finished) return;
    this.state[i] = finished;
    this.blocked.delete(i);
    this.outcomes.set(testCaseId, outcome);
    for (const d of this.dependents[i]!) {
      if (this.state[d] !== pending) continue;
      if (outcome !== 'PASSED') this.blocked.add(d);
      else if (--this.waiting[d]! === 0 && live && !this.blocked.has(d)) this.ready.push(d);
    }
  }
}

/** A binary min-heap of plan indices: the ready test first in plan order. */
class MinHeap {
  private readonly items: number[] = [];

  get size(): number {
    return this.items.length;
  }

  push(value: number): void {
    const a = this.items;
    a.push(value);
    for (let i = a.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (a[parent]! <= a[i]!) break;
      [a[parent], a[i]] = [a[i]!, a[parent]!];
      i = parent;
    }
  }

  pop(): number {
    const a = this.items;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && a[l]! < a[m]!) m = l;
        if (r < a.length && a[r]! < a[m]!) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i]!, a[m]!];
        i = m;
      }
    }
    return top;
  }
}
