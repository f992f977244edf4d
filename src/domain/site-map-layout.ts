// Where the dashboard draws each page pattern of a coverage map (issue 34). Pure and deterministic: the same map
// gives the same picture. Patterns form a tree by path (a pattern's parent is its longest path prefix that is also a
// pattern), drawn as an indented list, one row each, like a file tree: siblings stay together and a deep map grows
// down, never sideways. Links between patterns are arcs in a lane right of the boxes (an arc diagram), so they
// never cross a label. To stay readable (and within the page budget) for a few hundred patterns, a parent shows at
// most `maxChildren` children (its uncovered ones first) and the picture at most `maxRows` rows, chosen breadth
// first (the sections before their items); what is left out is counted in one summary row under its nearest drawn
// ancestor ("12 more under /orders, 3 uncovered"). The table beside it lists every pattern.

export interface LayoutPattern {
  pattern: string;
  covered: boolean;
  forms: number;
}

export interface LayoutOptions {
  /** Children drawn at most per parent (default 20); the rest become one summary row. */
  maxChildren?: number;
  /** Rows drawn in all, patterns and summaries (default 150). */
  maxRows?: number;
  /** Link arcs drawn. */
  maxArcs?: number;
}

export interface Box {
  x: number;
  y: number;
  width: number;
  depth: number;
}

export interface NodeBox extends Box, LayoutPattern {
  /** The pattern as it fits in the box (ellipsis when cut). */
  label: string;
  /** Distinct other patterns linking to it. */
  linksIn: number;
}

export interface SummaryBox extends Box {
  /** The drawn parent whose undrawn children (and all under them) it counts; null: the top level's. */
  under: string | null;
  hidden: number;
  uncovered: number;
}

/** An elbow from a parent's box down to a child's row. */
export interface Connector {
  x: number;
  y1: number;
  y2: number;
  x2: number;
}

/** A link from one drawn pattern to another: a curve right of the boxes from y1 to y2, bulging to x + bulge. */
export interface Arc {
  from: string;
  to: string;
  x: number;
  y1: number;
  y2: number;
  bulge: number;
}

export interface SiteMapLayout {
  width: number;
  height: number;
  nodes: NodeBox[];
  summaries: SummaryBox[];
  connectors: Connector[];
  arcs: Arc[];
  /** Patterns linked from most pages (a header's links): their links are not drawn, one arc per page would hide the rest. */
  navigation: string[];
  /** Links between drawn patterns left out beyond `maxArcs`. */
  arcsLeftOut: number;
}

export const siteMapGeometry = {
  pad: 8,
  rowHeight: 28,
  boxHeight: 22,
  indent: 20,
  /** The narrowest box (the deepest row's). */
  minBoxWidth: 300,
  /** Room kept right of the label for its tag ("uncovered · 12 forms"). */
  tagWidth: 132,
  /** Of the label's monospace font (12px). */
  charWidth: 7.3,
  maxBulge: 140,
} as const;

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The pattern's parent: its longest proper path prefix in `known` ('/' for a top page when '/' is known). */
export function parentPattern(pattern: string, known: ReadonlySet<string>): string | undefined {
  if (pattern === '/') return undefined;
  const segments = pattern.split('/').filter(Boolean);
  for (let k = segments.length - 1; k >= 0; k--) {
    const prefix = `/${segments.slice(0, k).join('/')}`;
    if (prefix !== pattern && known.has(prefix)) return prefix;
  }
  return undefined;
}

function fit(text: string, chars: number): string {
  return text.length <= chars ? text : `${text.slice(0, Math.max(1, chars - 1))}…`;
}

type Row =
  | { kind: 'node'; p: LayoutPattern; depth: number }
  | { kind: 'summary'; s: Omit<SummaryBox, keyof Box>; depth: number };

export function layoutSiteMap(
  input: readonly LayoutPattern[],
  links: readonly { from: string; to: string }[],
  options: LayoutOptions = {},
): SiteMapLayout {
  const maxChildren = Math.max(1, options.maxChildren ?? 20);
  const maxRows = Math.max(2, options.maxRows ?? 150);
  const maxArcs = options.maxArcs ?? 300;
  const g = siteMapGeometry;

  const byPattern = new Map<string, LayoutPattern>();
  for (const p of input) if (!byPattern.has(p.pattern)) byPattern.set(p.pattern, p);
  const patterns = [...byPattern.values()].sort((a, b) => byText(a.pattern, b.pattern));
  const known = new Set(byPattern.keys());
  const children = new Map<string | undefined, LayoutPattern[]>();
  for (const p of patterns) {
    const parent = parentPattern(p.pattern, known);
    const list = children.get(parent);
    if (list) list.push(p);
    else children.set(parent, [p]);
  }
  // Subtree sizes, deepest first (a child's pattern is longer than its parent's), for the summaries' counts.
  const size = new Map<string, { all: number; uncovered: number }>();
  for (const p of [...patterns].sort((a, b) => b.pattern.length - a.pattern.length)) {
    const own = { all: 1, uncovered: p.covered ? 0 : 1 };
    for (const c of children.get(p.pattern) ?? []) {
      const s = size.get(c.pattern)!;
      own.all += s.all;
      own.uncovered += s.uncovered;
    }
    size.set(p.pattern, own);
  }

  // Which patterns are drawn, breadth first, so the top of the tree shows before any detail: a parent offers its
  // uncovered children first, at most `maxChildren`, while the rows last. A drawn pattern with children left undrawn
  // costs one more row (its summary), so the budget counts those too: drawn + summaries <= maxRows.
  const drawn = new Set<string>();
  const undrawnChildren = new Map<string | undefined, number>();
  const kids = (parent: string | undefined) => children.get(parent) ?? [];
  undrawnChildren.set(undefined, kids(undefined).length);
  let rowsUsed = kids(undefined).length > 0 ? 1 : 0;
  const offered = (parent: string | undefined) =>
    [...kids(parent)]
      .sort((a, b) => Number(a.covered) - Number(b.covered) || byText(a.pattern, b.pattern))
      .slice(0, maxChildren);
  select: for (let level: (string | undefined)[] = [undefined]; level.length > 0;) {
    const next: string[] = [];
    for (const parent of level)
      for (const p of offered(parent)) {
        const own = kids(p.pattern).length;
        const left = undrawnChildren.get(parent)! - 1;
        const cost = 1 + (own > 0 ? 1 : 0) - (left === 0 ? 1 : 0);
        if (rowsUsed + cost > maxRows) break select;
        rowsUsed += cost;
        drawn.add(p.pattern);
        undrawnChildren.set(parent, left);
        undrawnChildren.set(p.pattern, own);
        next.push(p.pattern);
      }
    level = next;
  }

  // Rows in preorder: a parent, its drawn children in path order (each followed by its own), then its summary.
  const rows: Row[] = [];
  const walk = (parent: string | undefined, depth: number) => {
    const rest: LayoutPattern[] = [];
    for (const p of kids(parent)) {
      if (!drawn.has(p.pattern)) {
        rest.push(p);
        continue;
      }
      rows.push({ kind: 'node', p, depth });
      walk(p.pattern, depth + 1);
    }
    if (rest.length > 0) {
      const hidden = rest.reduce((n, p) => n + size.get(p.pattern)!.all, 0);
      const uncovered = rest.reduce((n, p) => n + size.get(p.pattern)!.uncovered, 0);
      rows.push({ kind: 'summary', s: { under: parent ?? null, hidden, uncovered }, depth });
    }
  };
  walk(undefined, 0);

  const maxDepth = rows.reduce((m, r) => Math.max(m, r.depth), 0);
  const right = g.pad + maxDepth * g.indent + g.minBoxWidth;
  const box = (depth: number, index: number): Box => {
    const x = g.pad + depth * g.indent;
    return { x, y: g.pad + index * g.rowHeight, width: right - x, depth };
  };

  // Links: each pair once, none to itself; the targets most pages link to are navigation, not drawn.
  const pairs = new Map<string, { from: string; to: string }>();
  for (const l of links)
    if (l.from !== l.to && known.has(l.from) && known.has(l.to)) pairs.set(`${l.from}\u0000${l.to}`, l);
  const sources = new Map<string, Set<string>>();
  for (const { from, to } of pairs.values()) sources.set(to, (sources.get(to) ?? new Set()).add(from));
  const navigationFloor = Math.max(4, Math.ceil(patterns.length / 2));
  const navigation = [...sources.entries()]
    .filter(([, from]) => from.size >= navigationFloor)
    .map(([to]) => to)
    .sort(byText);

  const nodes: NodeBox[] = [];
  const summaries: SummaryBox[] = [];
  const rowOf = new Map<string, Box>();
  const labelChars = (width: number) => Math.floor((width - 20 - g.tagWidth) / g.charWidth);
  rows.forEach((r, i) => {
    const b = box(r.depth, i);
    if (r.kind === 'summary') summaries.push({ ...b, ...r.s });
    else {
      const node: NodeBox = {
        ...b,
        ...r.p,
        label: fit(r.p.pattern, labelChars(b.width)),
        linksIn: sources.get(r.p.pattern)?.size ?? 0,
      };
      nodes.push(node);
      rowOf.set(r.p.pattern, b);
    }
  });

  const connectors: Connector[] = [];
  const parentBox = (pattern: string | null | undefined) => (pattern ? rowOf.get(pattern) : undefined);
  const hang = (b: Box, parent: string | null | undefined) => {
    const p = parentBox(parent);
    if (p) connectors.push({ x: p.x + 6, y1: p.y + g.boxHeight, y2: b.y + g.boxHeight / 2, x2: b.x });
  };
  for (const n of nodes) hang(n, parentPattern(n.pattern, known));
  for (const s of summaries) hang(s, s.under);

  const navigationSet = new Set(navigation);
  const drawable = [...pairs.values()]
    .filter((l) => !navigationSet.has(l.to) && rowOf.has(l.from) && rowOf.has(l.to))
    .sort((a, b) => byText(a.from, b.from) || byText(a.to, b.to));
  const arcs = drawable.slice(0, maxArcs).map((l): Arc => {
    const y1 = rowOf.get(l.from)!.y + g.boxHeight / 2;
    const y2 = rowOf.get(l.to)!.y + g.boxHeight / 2;
    return { ...l, x: right, y1, y2, bulge: Math.min(g.maxBulge, 10 + Math.abs(y2 - y1) / 3) };
  });
  const lane = arcs.reduce((m, a) => Math.max(m, a.bulge), 0);

  return {
    width: right + lane + g.pad + (lane > 0 ? 4 : 0),
    height: g.pad * 2 + rows.length * g.rowHeight - (g.rowHeight - g.boxHeight),
    nodes,
    summaries,
    connectors,
    arcs,
    navigation,
    arcsLeftOut: drawable.length - arcs.length,
  };
}
