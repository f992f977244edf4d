// A plan run's graph as its scheduler needs it, and nothing else: which tests there are, what each waits for and
// resumes from, which are quarantined, how often each may retry. What a test needs only when it runs (its URL,
// device, build) is not here: the activity that runs it reads it from the test's row. Built once per run chain
// from the database and kept in the blob store, so a run that continues as new reads ~100 bytes a test of it by
// reference where it reloaded the whole plan (~330 bytes a test, three joins) before.
import type { RunNode } from './run-plan.js';

/** A test as the run's scheduler sees it: the graph node, its row, its retries. */
export interface GraphNode extends RunNode {
  runTestCaseId: string;
  /** The project's `retries` when the graph was built: how often a failed test runs again. */
  retries: number;
}

/**
 * Columnar, in plan order, dependencies by position: JSON keys and test case ids repeated per dependency were most
 * of the plan's bytes. Positions are the plan's, so a page keeps them absolute.
 */
export interface RunGraph {
  testCaseIds: string[];
  runTestCaseIds: string[];
  /** Null where a test has no name (skip reasons then name it by id, as before). */
  names: (string | null)[];
  retries: number[];
  /** Per test, the positions of its wait-for dependencies. */
  waitFor: number[][];
  /** Per test, the position of its resume-from dependency, or -1. */
  resumeFrom: number[];
  /** Positions of the quarantined tests. */
  quarantined: number[];
}

export function toRunGraph(nodes: readonly GraphNode[]): RunGraph {
  const position = new Map(nodes.map((n, i) => [n.testCaseId, i]));
  const at = (id: string) => {
    const i = position.get(id);
    if (i === undefined) throw new Error(`dependency ${id} is not in the run`);
    return i;
  };
  return {
    testCaseIds: nodes.map((n) => n.testCaseId),
    runTestCaseIds: nodes.map((n) => n.runTestCaseId),
    names: nodes.map((n) => n.name ?? null),
    retries: nodes.map((n) => n.retries),
    waitFor: nodes.map((n) => n.waitFor.map(at)),
    resumeFrom: nodes.map((n) => (n.resumeFrom ? at(n.resumeFrom) : -1)),
    quarantined: nodes.flatMap((n, i) => (n.quarantined ? [i] : [])),
  };
}

/** Tests `offset` to `offset + limit` of the graph; their dependencies keep the plan's positions. */
export function graphPage(graph: RunGraph, offset: number, limit: number): RunGraph & { total: number } {
  const end = offset + limit;
  return {
    total: graph.testCaseIds.length,
    testCaseIds: graph.testCaseIds.slice(offset, end),
    runTestCaseIds: graph.runTestCaseIds.slice(offset, end),
    names: graph.names.slice(offset, end),
    retries: graph.retries.slice(offset, end),
    waitFor: graph.waitFor.slice(offset, end),
    resumeFrom: graph.resumeFrom.slice(offset, end),
    quarantined: graph.quarantined.filter((i) => i >= offset && i < end),
  };
}

/** The nodes of a whole graph (its pages joined in order), as the scheduler takes them. */
export function graphNodes(pages: readonly RunGraph[]): GraphNode[] {
  const ids = pages.flatMap((p) => p.testCaseIds);
  const quarantined = new Set(pages.flatMap((p) => p.quarantined));
  const idAt = (i: number) => {
    const id = ids[i];
    if (id === undefined) throw new Error(`the run's graph names a test at position ${i}, it has ${ids.length}`);
    return id;
  };
  let i = 0;
  return pages.flatMap((p) =>
    p.testCaseIds.map((testCaseId, j) => {
      const position = i++;
      const resumeFrom = p.resumeFrom[j]!;
      const name = p.names[j];
      return {
        testCaseId,
        runTestCaseId: p.runTestCaseIds[j]!,
        ...(name != null && { name }),
        retries: p.retries[j]!,
        resumeFrom: resumeFrom < 0 ? null : idAt(resumeFrom),
        waitFor: p.waitFor[j]!.map(idAt),
        ...(quarantined.has(position) && { quarantined: true }),
      };
    }),
  );
}
