import { describe, expect, it } from 'vitest';
import { DependencyCycleError, findCycle, topologicalOrder } from '../../src/domain/dag.js';

const graph = (entries: Record<string, string[]>) => new Map(Object.entries(entries));

describe('findCycle', () => {
  it('finds none in an empty graph, a chain, a diamond or a forest', () => {
    expect(findCycle(new Map())).toBeUndefined();
    expect(findCycle(graph({ a: ['b'], b: ['c'], c: [] }))).toBeUndefined();
    expect(
      findCycle(graph({ top: ['left', 'right'], left: ['bottom'], right: ['bottom'], bottom: [] })),
    ).toBeUndefined();
    expect(findCycle(graph({ a: ['b'], x: ['y'], y: [] }))).toBeUndefined();
  });

  it('follows edges to nodes that have no entry of their own', () => {
    expect(findCycle(graph({ a: ['gone', 'b'], b: ['also-gone'] }))).toBeUndefined();
  });

  it('returns the cycle as a path back to its first node', () => {
    expect(findCycle(graph({ a: ['a'] }))).toEqual(['a', 'a']);
    expect(findCycle(graph({ a: ['b'], b: ['a'] }))).toEqual(['a', 'b', 'a']);
    // Only the nodes on the cycle, not the path that led to it.
    expect(findCycle(graph({ start: ['a'], a: ['b'], b: ['c'], c: ['a'] }))).toEqual(['a', 'b', 'c', 'a']);
  });

  it('finds a cycle reachable only through a shared (already finished) node', () => {
    const edges = graph({ a: ['shared'], shared: [], b: ['shared', 'c'], c: ['d'], d: ['b'] });
    expect(findCycle(edges)).toEqual(['b', 'c', 'd', 'b']);
  });

  it('handles a long chain without recursion', () => {
    const n = 100_000;
    const edges = new Map(Array.from({ length: n }, (_, i) => [`n${i}`, i + 1 < n ? [`n${i + 1}`] : []]));
    expect(findCycle(edges)).toBeUndefined();
    edges.set(`n${n - 1}`, ['n0']);
    expect(findCycle(edges)).toHaveLength(n + 1);
  });
});

describe('topologicalOrder', () => {
  it('puts every dependency before its dependents', () => {
    const edges = graph({ checkout: ['login', 'cart'], cart: ['login'], login: [], search: [] });
    const order = topologicalOrder(edges);
    expect([...order].sort()).toEqual(['cart', 'checkout', 'login', 'search']);
    for (const [node, deps] of edges)
      for (const dep of deps) expect(order.indexOf(dep)).toBeLessThan(order.indexOf(node));
  });

  it('from given roots, includes their transitive dependencies once and nothing else', () => {
    const edges = graph({ checkout: ['cart', 'login'], cart: ['login'], login: [], search: [], admin: ['login'] });
    expect(topologicalOrder(edges, ['checkout', 'cart'])).toEqual(['login', 'cart', 'checkout']);
    expect(topologicalOrder(edges, ['search'])).toEqual(['search']);
  });

  it('throws DependencyCycleError carrying the cycle', () => {
    const err = (() => {
      try {
        topologicalOrder(graph({ a: ['b'], b: ['a'] }));
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(DependencyCycleError);
    expect((err as DependencyCycleError).cycle).toEqual(['a', 'b', 'a']);
  });
});
