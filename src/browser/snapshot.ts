import type { Page } from 'playwright-core';

export interface Observation {
  url: string;
  title: string;
  /** The aria snapshot with element refs (`[ref=e12]`), compacted. */
  snapshot: string;
  /** Lines dropped by compaction, so the model knows the page is larger than what it sees. */
  omittedLines: number;
}

export interface ObserveOptions {
  /** Upper bound of the snapshot text; about 4 characters a token. */
  maxChars?: number;
  /** Values that must never leave the worker (secret configs): replaced by `{{NAME}}`. */
  redact?: Record<string, string>;
}

/** What the agent sees of the page: Playwright's AI-mode aria snapshot (iframes and shadow DOM included). */
export async function observe(page: Page, opts: ObserveOptions = {}): Promise<Observation> {
  const raw = await page.ariaSnapshot({ mode: 'ai' });
  const { text, omitted } = compactSnapshot(raw, opts.maxChars ?? 6_000);
  return {
    url: redact(page.url(), opts.redact),
    title: redact(await page.title(), opts.redact),
    snapshot: redact(text, opts.redact),
    omittedLines: omitted,
  };
}

export function redact(text: string, secrets: Record<string, string> = {}): string {
  let out = text;
  for (const [name, value] of Object.entries(secrets)) {
    if (value.length >= 3) out = out.split(value).join(`{{${name}}}`);
  }
  return out;
}

const MAX_TEXT = 100;
const SIBLINGS_KEPT = [25, 10, 5, 3];

/**
 * Shrinks a snapshot while keeping every actionable ref reachable: drops pointer/url noise, truncates long
 * text, collapses long runs of similar siblings, and as a last resort cuts plain text before elements.
 */
export function compactSnapshot(snapshot: string, maxChars: number): { text: string; omitted: number } {
  const cleaned = snapshot
    .split('\n')
    .map((line) => line.replace(/ \[cursor=pointer\]/g, '').replace(/ \[active\]/g, ''))
    .filter((line) => !/^\s*- \/url: /.test(line) || line.length < 80)
    .map((line) => (line.length > MAX_TEXT + 40 ? line.slice(0, MAX_TEXT + 40) + '…' : line));

  const size = (ls: string[]) => ls.reduce((n, l) => n + l.length + 1, 0);
  // Fewer repeated siblings first: a page's long lists and tables shrink, and what follows them
  // (an iframe, a shadow-DOM widget, the footer's controls) stays in view.
  // A page that fits is shown whole: a list scrolled to its 35th entry must show that entry.
  let lines = cleaned;
  for (const keep of size(cleaned) > maxChars ? SIBLINGS_KEPT : []) {
    lines = collapseSiblings(cleaned, keep);
    if (size(lines) <= maxChars) break;
  }
  let omitted = 0;
  if (size(lines) > maxChars) {
    // Text without a ref cannot be acted on; it goes next.
    const before = lines.length;
    lines = lines.filter((l) => /\[ref=/.test(l) || !/^\s*- text: /.test(l));
    omitted += before - lines.length;
  }
  const note = (n: number) => `# ${n} more lines not shown (scroll or narrow down with wait_for/navigate)`;
  if (size(lines) > maxChars) {
    const budget = maxChars - note(lines.length).length - 1;
    let total = 0;
    const kept: string[] = [];
    for (const line of lines) {
      if (total + line.length + 1 > budget) break;
      kept.push(line);
      total += line.length + 1;
    }
    omitted += lines.length - kept.length;
    lines = kept;
  }
  if (omitted > 0) lines.push(note(omitted));
  return { text: lines.join('\n'), omitted };
}

interface Node {
  line: string;
  children: Node[];
}

function toTree(lines: string[]): Node[] {
  const root: Node = { line: '', children: [] };
  const stack: { node: Node; indent: number }[] = [{ node: root, indent: -1 }];
  for (const line of lines) {
    const indent = line.length - line.trimStart().length;
    while (stack.length > 1 && stack.at(-1)!.indent >= indent) stack.pop();
    const node: Node = { line, children: [] };
    stack.at(-1)!.node.children.push(node);
    stack.push({ node, indent });
  }
  return root.children;
}

// Long lists (search results, tables) repeat one shape: keep the first items and say how many follow.
function collapseSiblings(lines: string[], maxSiblings: number): string[] {
  const out: string[] = [];
  const kindOf = (l: string) => /^\s*- (\w+)/.exec(l)?.[1] ?? '';
  const render = (nodes: Node[]) => {
    let i = 0;
    while (i < nodes.length) {
      const kind = kindOf(nodes[i]!.line);
      let j = i;
      while (j < nodes.length && kind !== '' && kindOf(nodes[j]!.line) === kind) j++;
      if (j === i) j = i + 1;
      const run = nodes.slice(i, j);
      for (const node of run.slice(0, maxSiblings)) {
        out.push(node.line);
        render(node.children);
      }
      if (run.length > maxSiblings) {
        const indent = nodes[i]!.line.length - nodes[i]!.line.trimStart().length;
        out.push(`${' '.repeat(indent)}- # ${run.length - maxSiblings} more ${kind} items`);
      }
      i = j;
    }
  };
  render(toTree(lines));
  return out;
}
