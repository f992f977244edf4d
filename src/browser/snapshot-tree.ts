// The aria snapshot as a tree of lines (indentation is nesting), for the compaction's passes: collapsing long runs
// of same-shaped siblings, and finding the nodes a collapse hid.

export interface SnapshotNode {
  line: string;
  children: SnapshotNode[];
  parent?: SnapshotNode;
}

export const indentOf = (line: string): number => line.length - line.trimStart().length;
export const kindOf = (line: string): string => /^\s*- (\w+)/.exec(line)?.[1] ?? '';

export function toTree(lines: string[]): SnapshotNode[] {
  const root: SnapshotNode = { line: '', children: [] };
  const stack: { node: SnapshotNode; indent: number }[] = [{ node: root, indent: -1 }];
  for (const line of lines) {
    const indent = indentOf(line);
    while (stack.length > 1 && stack.at(-1)!.indent >= indent) stack.pop();
    const parent = stack.at(-1)!.node;
    const node: SnapshotNode = { line, children: [], ...(parent !== root && { parent }) };
    parent.children.push(node);
    stack.push({ node, indent });
  }
  return root.children;
}

/** A node and everything under it, as lines. */
export function subtreeLines(node: SnapshotNode): string[] {
  return [node.line, ...node.children.flatMap(subtreeLines)];
}

/** Consecutive siblings of one kind (list items, table rows, cards): [start, end) index pairs. */
function runsOf(nodes: SnapshotNode[]): [number, number][] {
  const runs: [number, number][] = [];
  let i = 0;
  while (i < nodes.length) {
    const kind = kindOf(nodes[i]!.line);
    let j = i;
    while (j < nodes.length && kind !== '' && kindOf(nodes[j]!.line) === kind) j++;
    if (j === i) j = i + 1;
    runs.push([i, j]);
    i = j;
  }
  return runs;
}

/**
 * A run this long repeats one shape (a list's items, a table's rows); shorter ones (a row's four cells, a form's
 * fields) are the page's structure and are never collapsed.
 */
export const longRun = 8;

/** The hint on a collapsed run: the agent's `find` tool lists the hidden items by their text. */
export const collapsedNote = (indent: number, hidden: number, kind: string, all = false): string =>
  `${' '.repeat(indent)}- # ${hidden} ${all ? '' : 'more '}${kind} items (find shows them by text)`;

/** Long lists (search results, tables) repeat one shape: keep the first items and say how many follow. */
export function collapseSiblings(lines: string[], maxSiblings: number): string[] {
  const out: string[] = [];
  const render = (nodes: SnapshotNode[]) => {
    for (const [i, j] of runsOf(nodes)) {
      const run = nodes.slice(i, j);
      for (const node of run.length >= longRun ? run.slice(0, maxSiblings) : run) {
        out.push(node.line);
        render(node.children);
      }
      if (run.length > maxSiblings && run.length >= longRun) out.push(collapsedNote(indentOf(nodes[i]!.line), run.length - maxSiblings, kindOf(nodes[i]!.line), maxSiblings === 0));
    }
  };
  render(toTree(lines));
  return out;
}

/** The run a node belongs to is long (a list item among hundreds): that item is what a match should show whole. */
function isRunItem(node: SnapshotNode, siblings: SnapshotNode[]): boolean {
  const kind = kindOf(node.line);
  return kind !== '' && siblings.filter((s) => kindOf(s.line) === kind).length >= longRun;
}

export interface FindResult {
  lines: string[];
  matches: number;
  shown: number;
}

/**
 * The nodes whose line contains `query` (case-insensitive), each shown as the list item, row or card it sits in,
 * so a match on an order number brings that row's buttons with it. Indentation is made relative to each item.
 */
export function findInSnapshot(lines: string[], query: string, maxMatches: number): FindResult {
  const needle = query.trim().toLowerCase();
  if (!needle) return { lines: [], matches: 0, shown: 0 };
  const roots = toTree(lines);
  const items: SnapshotNode[] = [];
  const visit = (nodes: SnapshotNode[]) => {
    for (const node of nodes) {
      if (node.line.toLowerCase().includes(needle)) {
        let item: SnapshotNode | undefined;
        for (let n: SnapshotNode | undefined = node; n && !item; n = n.parent) if (isRunItem(n, n.parent?.children ?? roots)) item = n;
        const shown = item ?? node;
        if (!items.includes(shown)) items.push(shown);
      }
      visit(node.children);
    }
  };
  visit(roots);
  const out = items.slice(0, maxMatches).flatMap((item) => {
    const base = indentOf(item.line);
    // A match high in the page (the main region) would bring the whole page: its own line and direct children only.
    const body = subtreeLines(item);
    const lines = body.length > 12 ? [item.line, ...item.children.map((c) => c.line)].slice(0, 12) : body;
    return lines.map((l) => l.slice(base));
  });
  return { lines: out, matches: items.length, shown: Math.min(items.length, maxMatches) };
}
