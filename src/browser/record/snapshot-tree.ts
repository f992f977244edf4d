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
      if (run.length > maxSiblings && run.length >= longRun)
        out.push(
          collapsedNote(indentOf(nodes[i]!.line), run.length - maxSiblings, kindOf(nodes[i]!.line), maxSiblings === 0),
        );
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

// What a test acts on or asserts: a text match is answered with the innermost of these that holds it.
const elementKinds = new Set([
  'listitem',
  'row',
  'cell',
  'gridcell',
  'rowheader',
  'columnheader',
  'option',
  'alert',
  'alertdialog',
  'status',
  'dialog',
  'heading',
  'link',
  'button',
  'checkbox',
  'radio',
  'textbox',
  'searchbox',
  'combobox',
  'menuitem',
  'tab',
  'paragraph',
]);

// What runs inside a line of text: a node holding only these is one text block (a message with a link in it).
const inlineKinds = new Set([
  '',
  'text',
  'link',
  'strong',
  'emphasis',
  'code',
  'mark',
  'img',
  'superscript',
  'subscript',
  'time',
  'deletion',
  'insertion',
]);
const isTextBlock = (node: SnapshotNode): boolean => node.children.every((c) => inlineKinds.has(kindOf(c.line)));

/** The innermost node whose joined text holds `query`, climbed to the element a test would act on or assert. */
function matchesOf(roots: SnapshotNode[], query: string): SnapshotNode[] {
  const found: SnapshotNode[] = [];
  const visit = (nodes: SnapshotNode[]) => {
    for (const node of nodes) {
      if (!textHas(joinedText(node), query)) continue;
      const inner = node.children.filter((c) => textHas(joinedText(c), query));
      // A text split across children (a message with a link in it) matches here and in none of them.
      if (inner.length > 0 && !namedByContent(node.line)) {
        visit(inner);
        continue;
      }
      // Text that runs from one block into another (a message into the heading after it) is no element's text.
      if (!elementKinds.has(kindOf(node.line)) && !isTextBlock(node) && !textHas(ownText(node.line), query)) continue;
      let element: SnapshotNode | undefined;
      for (let n: SnapshotNode | undefined = node; n && !element; n = n.parent)
        if (elementKinds.has(kindOf(n.line)) && /\[ref=/.test(n.line)) element = n;
      if (!element)
        for (let n: SnapshotNode | undefined = node; n && !element; n = n.parent)
          if (/\[ref=/.test(n.line)) element = n;
      const shown = element ?? node;
      if (!found.includes(shown)) found.push(shown);
    }
  };
  visit(roots);
  return found;
}

/**
 * The elements whose text holds `query` (case and spaces ignored, text split by inline links joined), each the
 * innermost element a test would act on or assert, with its ref, its role and its whole text; one inside a long
 * run (a row among hundreds) comes with that row, so a match on an order number brings the row's buttons.
 * Indentation is made relative to each item.
 */
export function findInSnapshot(lines: string[], query: string, maxMatches: number): FindResult {
  if (!query.trim()) return { lines: [], matches: 0, shown: 0 };
  const roots = toTree(lines);
  const items = matchesOf(roots, query).map((element) => {
    for (let n: SnapshotNode | undefined = element; n; n = n.parent)
      if (isRunItem(n, n.parent?.children ?? roots) && subtreeLines(n).length <= 12) return n;
    return element;
  });
  const unique = [...new Set(items)];
  const out = unique.slice(0, maxMatches).flatMap((item) => {
    const base = indentOf(item.line);
    // A match high in the page (the main region) would bring the whole page: its own line and direct children only.
    const body = subtreeLines(item);
    const lines = body.length > 12 ? [item.line, ...item.children.map((c) => c.line)].slice(0, 12) : body;
    // An element with no name of its own says its whole text on its line: the text an assertion will expect.
    const text = joinedText(item);
    const head =
      namedByContent(item.line) || item.children.length === 0 || !text
        ? item.line
        : `${item.line.replace(/:$/, '')}: ${JSON.stringify(text)}`;
    return [head, ...lines.slice(1)].map((l) => l.slice(base));
  });
  return { lines: out, matches: unique.length, shown: Math.min(unique.length, maxMatches) };
}

// Roles whose name is their content (a link's text, a cell's): their children say it again. A container's name
// (a list's label, a dialog's title) is not its content.
const contentNamed = new Set([
  'link',
  'button',
  'heading',
  'cell',
  'gridcell',
  'rowheader',
  'columnheader',
  'option',
  'menuitem',
  'tab',
  'checkbox',
  'radio',
  'switch',
  'textbox',
  'searchbox',
  'combobox',
  'img',
  'code',
  'strong',
  'emphasis',
]);
const namedByContent = (line: string): boolean => /^\s*- [\w-]+ "/.test(line) && contentNamed.has(kindOf(line));

/** A line's own text: its accessible name (`- link "QA Team"`) or its inline text (`- text: was added`). */
export function ownText(line: string): string {
  const m = /^\s*- ([\w-]+)(?: "((?:[^"\\]|\\.)*)")?[^:]*(?::\s*(.*))?$/.exec(line);
  if (!m || m[1] === 'url' || /^\s*- \//.test(line)) return '';
  if (m[2] !== undefined) return m[2].replace(/\\(.)/g, '$1');
  const inline = (m[3] ?? '').trim();
  return /^".*"$/.test(inline) ? inline.slice(1, -1).replace(/\\(.)/g, '$1') : inline;
}

/**
 * What a person reads of a node: its name when it has one (a name computed from the content repeats it), else its
 * own and its children's text in order, as one string: `The group “QA Team” was added successfully.` across a link.
 */
export function joinedText(node: SnapshotNode): string {
  const own = ownText(node.line);
  if (namedByContent(node.line) || node.children.length === 0) return own;
  const parts = [own, ...node.children.map(joinedText)].filter(Boolean);
  return parts
    .join(' ')
    .replace(/([“‘«„([]) /g, '$1')
    .replace(/ ([”’»)\].,;:!?])/g, '$1');
}

/** Whether `text` contains `query`, ignoring case and whitespace (a text split by a link joins without its spaces). */
export function textHas(text: string, query: string): boolean {
  const squash = (t: string) => t.toLowerCase().replace(/\s+/g, '');
  const needle = squash(query);
  return needle !== '' && squash(text).includes(needle);
}
