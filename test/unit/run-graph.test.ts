import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { graphNodes, graphPage, toRunGraph, type GraphNode } from '../../src/domain/run-graph.js';
import { RunScheduler } from '../../src/domain/run-scheduler.js';

// A plan run's graph goes by reference (a blob the chain's runs read in pages): whatever the plan, the scheduler
// must get back exactly the nodes the plan had, or a continued run would schedule another graph than its first run.

/** Plans whose dependencies are within the plan (loadRunPlan drops the others): chains, diamonds, duplicates, no names. */
const plans = fc.integer({ min: 0, max: 40 }).chain((n) =>
  fc.tuple(
    ...Array.from({ length: n }, (_, i) =>
      fc
        .record({
          name: fc.option(fc.string({ maxLength: 12 }), { nil: undefined }),
          waitFor: fc.array(fc.integer({ min: 0, max: Math.max(0, n - 1) }), { maxLength: 3 }),
          resumeFrom: fc.option(fc.integer({ min: 0, max: Math.max(0, n - 1) }), { nil: null }),
          quarantined: fc.boolean(),
          retries: fc.integer({ min: 0, max: 3 }),
        })
        .map((t): GraphNode => ({
          testCaseId: `tc-${i}`,
          runTestCaseId: `rtc-${i}`,
          ...(t.name !== undefined && { name: t.name }),
          waitFor: t.waitFor.map((d) => `tc-${d}`),
          resumeFrom: t.resumeFrom === null ? null : `tc-${t.resumeFrom}`,
          retries: t.retries,
          ...(t.quarantined && { quarantined: true }),
        })),
    ),
  ),
);

/** The graph as the workflow reads it: JSON (the blob, then each page as an activity result), page by page. */
function throughPages(nodes: GraphNode[], pageSize: number): GraphNode[] {
  const stored = JSON.parse(JSON.stringify(toRunGraph(nodes))) as ReturnType<typeof toRunGraph>;
  const pages = [];
  for (let offset = 0; ; offset += pageSize) {
    const page = JSON.parse(JSON.stringify(graphPage(stored, offset, pageSize))) as ReturnType<typeof graphPage>;
    pages.push(page);
    if (offset + pageSize >= page.total) return graphNodes(pages);
  }
}

describe('a run graph by reference', () => {
  it('gives back the plan it was built from, node for node, whatever the page size', () => {
    fc.assert(
      fc.property(plans, fc.integer({ min: 1, max: 45 }), (nodes, pageSize) => {
        expect(throughPages(nodes, pageSize)).toEqual(nodes);
      }),
      { numRuns: 300 },
    );
  });

  it('schedules and skips as the plan it came from: same starts, same reasons', () => {
    fc.assert(
      fc.property(
        plans,
        fc.integer({ min: 1, max: 7 }),
        fc.array(fc.constantFrom('PASSED', 'FAILED', 'ERROR') as fc.Arbitrary<'PASSED' | 'FAILED' | 'ERROR'>, {
          maxLength: 40,
        }),
        (nodes, pageSize, results) => {
          const trace = (plan: GraphNode[]) => {
            const scheduler = new RunScheduler(plan);
            const events: string[] = [];
            for (let i = 0; ; i++) {
              const skips = scheduler.toSkip();
              for (const s of skips) scheduler.ended(s.testCaseId, 'SKIPPED');
              events.push(...skips.map((s) => `skip ${s.testCaseId}: ${s.reason}`));
              const [next] = scheduler.take(1);
              if (!next) return events;
              const outcome = results[i % Math.max(1, results.length)] ?? 'PASSED';
              scheduler.ended(next, outcome);
              events.push(`${next} ${outcome}`);
            }
          };
          expect(trace(throughPages(nodes, pageSize))).toEqual(trace(nodes));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses a dependency that is not in the run, rather than dropping it', () => {
    expect(() => toRunGraph([{ testCaseId: 'a', runTestCaseId: 'r-a', waitFor: ['gone'], retries: 0 }])).toThrow(
      /gone is not in the run/,
    );
  });
});
