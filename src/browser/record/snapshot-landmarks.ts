// The page by landmarks (issue 32): what a person looks at first comes first and is cut last. A typical admin
// application puts its banner, breadcrumbs and a navigation sidebar before `main`; cutting a snapshot's last lines
// cut the form, the Save button and the messages, and kept the sidebar. Here a page that does not fit is shown as
// its dialogs and alerts, then `main` (else the largest region without landmarks) whole, then the rest; banner,
// navigation, sidebars and footers shrink to one line each (their name and what they hold) before anything of
// `main` is cut, and their elements stay reachable through `find`, which searches the whole page.
import { indentOf, kindOf, subtreeLines, toTree, type SnapshotNode } from './snapshot-tree.js';

const urgentKinds = new Set(['dialog', 'alertdialog', 'alert']);
const peripheralKinds = new Set(['banner', 'navigation', 'complementary', 'contentinfo']);
const controlKinds = new Set([
  'link',
  'button',
  'textbox',
  'searchbox',
  'combobox',
  'checkbox',
  'radio',
  'listbox',
  'menuitem',
  'tab',
  'slider',
  'spinbutton',
  'switch',
]);

export interface PageSections {
  /** Dialogs and alerts, each dedented to the left margin. */
  urgent: string[];
  /** The main landmark (or the largest region without landmarks), dedented. */
  main: string[];
  /** Everything else in document order; `summarized` gives banner, navigation, sidebars and footers one line each. */
  rest: (summarized: boolean) => string[];
  /** Whether the page has any of those landmarks (else summarizing changes nothing). */
  hasPeripherals: boolean;
}

const dedent = (lines: string[]): string[] => {
  const base = lines.length ? indentOf(lines[0]!) : 0;
  return lines.map((l) => l.slice(Math.min(base, indentOf(l))));
};

/** `40 links, 1 searchbox`: what a landmark shown as one line holds, so the model knows to `find` in it. */
export function holdings(node: SnapshotNode): string {
  const counts = new Map<string, number>();
  for (const line of subtreeLines(node).slice(1)) {
    const kind = kindOf(line);
    if (controlKinds.has(kind)) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  const plural = (kind: string, n: number) => (n === 1 ? kind : /(x|s)$/.test(kind) ? `${kind}es` : `${kind}s`);
  const held = [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([kind, n]) => `${n} ${plural(kind, n)}`)
    .join(', ');
  return held || `${subtreeLines(node).length - 1} lines`;
}

const summaryLine = (node: SnapshotNode): string =>
  `${node.line.replace(/:$/, '')}: # ${holdings(node)} (find shows them by text)`;

export function pageSections(lines: string[]): PageSections {
  const roots = toTree(lines);
  const size = new Map<SnapshotNode, number>();
  const sizeOf = (n: SnapshotNode): number => {
    let s = size.get(n);
    if (s === undefined) size.set(n, (s = 1 + n.children.reduce((t, c) => t + sizeOf(c), 0)));
    return s;
  };
  const urgent: SnapshotNode[] = [];
  const peripherals = new Set<SnapshotNode>();
  let main: SnapshotNode | undefined;
  const hasLandmark = new Map<SnapshotNode, boolean>();
  // Dialogs and alerts anywhere (a toast in the banner too), the outermost of each; the first main; landmarks
  // outside main and dialogs.
  const scan = (nodes: SnapshotNode[], inUrgent: boolean, inside: boolean): boolean => {
    let any = false;
    for (const node of nodes) {
      const kind = kindOf(node.line);
      const isUrgent = urgentKinds.has(kind) && !inUrgent;
      if (isUrgent) urgent.push(node);
      else if (kind === 'main' && !main && !inUrgent) main = node;
      else if (peripheralKinds.has(kind) && !inside) peripherals.add(node);
      const landmark =
        scan(node.children, inUrgent || isUrgent, inside || isUrgent || kind === 'main' || peripheralKinds.has(kind)) ||
        isUrgent ||
        peripheralKinds.has(kind) ||
        kind === 'main';
      hasLandmark.set(node, landmark);
      any ||= landmark;
    }
    return any;
  };
  scan(roots, false, false);
  if (!main) {
    // No main landmark: the largest region holding no landmark is what the page is about.
    let best: SnapshotNode | undefined;
    const visit = (nodes: SnapshotNode[]) => {
      for (const node of nodes) {
        if (!hasLandmark.get(node)) {
          if (node.children.length > 0 && (!best || sizeOf(node) > sizeOf(best))) best = node;
        } else if (!peripherals.has(node) && !urgent.includes(node)) visit(node.children);
      }
    };
    visit(roots);
    main = best;
  }
  const taken = new Set<SnapshotNode>([...urgent, ...(main ? [main] : [])]);
  const render = (nodes: SnapshotNode[], summarized: boolean, out: string[]): string[] => {
    for (const node of nodes) {
      if (taken.has(node)) continue;
      if (peripherals.has(node) && summarized) {
        out.push(summaryLine(node));
        continue;
      }
      const at = out.length;
      out.push(node.line);
      render(node.children, summarized, out);
      // A wrapper left empty (it held only main or a dialog) says nothing.
      if (out.length === at + 1 && node.children.length > 0 && !/\[ref=/.test(node.line)) out.pop();
    }
    return out;
  };
  return {
    urgent: urgent.flatMap((n) => dedent(subtreeLines(n))),
    main: main ? dedent([main.line, ...render(main.children, false, [])]) : [],
    rest: (summarized) => render(roots, summarized, []),
    hasPeripherals: peripherals.size > 0,
  };
}
