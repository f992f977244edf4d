// Dependency graphs of test cases. Pure (no Node imports): the API validates dependencies with it, and
// workflows order a run with it.
//
// A graph maps each node to the nodes it depends on (`edges.get(a)` lists what `a` waits for or resumes
// from). A node that appears only as a dependency has no dependencies of its own.

export type DependencyEdges = ReadonlyMap<string, readonly string[]>;

interface Walk {
  /** Every visited node, dependencies before the nodes that depend on them. */
  order: string[];
  /** The first cycle found, as a path that starts and ends at the same node. */
  cycle?: string[];
}

// Depth-first with an explicit stack: a long dependency chain must not overflow the call stack.
function walk(edges: DependencyEdges, roots: Iterable<string>): Walk {
  const state = new Map<string, 'open' | 'done'>();
  const order: string[] = [];
  for (const root of roots) {
    if (state.has(root)) continue;
    state.set(root, 'open');
    const stack: { node: string; next: number }[] = [{ node: root, next: 0 }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const deps = edges.get(top.node) ?? [];
      if (top.next < deps.length) {
        const dep = deps[top.next++]!;
        const seen = state.get(dep);
        if (seen === 'open') {
          const from = stack.findIndex((frame) => frame.node === dep);
          return { order, cycle: [...stack.slice(from).map((frame) => frame.node), dep] };
        }
        if (seen === undefined) {
          state.set(dep, 'open');
          stack.push({ node: dep, next: 0 });
        }
      } else {
        state.set(top.node, 'done');
        order.push(top.node);
        stack.pop();
      }
    }
  }
  return { order };
}

/**
 * A dependency cycle as a path from a node back to itself (`['a', 'b', 'a']`: a depends on b, b on a;
 * a self-dependency is `['a', 'a']`), or undefined when the graph has none.
 */
export function findCycle(edges: DependencyEdges): string[] | undefined {
  return walk(edges, edges.keys()).cycle;
}

export class DependencyCycleError extends Error {
  constructor(readonly cycle: string[]) {
    super(`dependency cycle: ${cycle.join(' -> ')}`);
    this.name = 'DependencyCycleError';
  }
}

/**
 * The roots (all nodes when omitted) with everything they depend on, transitively, each exactly once and
 * after all of its dependencies: the order in which a run can start them. Throws DependencyCycleError.
 */
export function topologicalOrder(edges: DependencyEdges, roots: Iterable<string> = edges.keys()): string[] {
  const { order, cycle } = walk(edges, roots);
  if (cycle) throw new DependencyCycleError(cycle);
  return order;
}
