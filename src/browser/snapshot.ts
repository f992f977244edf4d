import type { Page } from 'playwright-core';
import { RefAliases } from './snapshot-refs.js';
import { collapseSiblings, findInSnapshot } from './snapshot-tree.js';

export interface Observation {
  url: string;
  title: string;
  /** The aria snapshot with element refs (`[ref=e12]`), compacted. */
  snapshot: string;
  /** Lines dropped by compaction, so the model knows the page is larger than what it sees. */
  omittedLines: number;
  /** With `find`: the page's nodes matching it, whole items with their refs, whether compaction hid them or not. */
  found?: string;
  /** With `shortRefs`: the aliases the snapshot and `found` use, mapped back to Playwright's refs. */
  refs?: RefAliases;
}

export interface ObserveOptions {
  /** Upper bound of the snapshot (and `found`) as `measure` counts; about 4 characters a token by default. */
  maxChars?: number;
  /** How `maxChars` is counted, e.g. in the model's tokens (the agent's prompt budget). Default: characters. */
  measure?: (text: string) => number;
  /** Values that must never leave the worker (secret configs): replaced by `{{NAME}}`. */
  redact?: Record<string, string>;
  /** Text the agent asked for (its `find` tool): matching nodes are listed from the whole snapshot. */
  find?: string;
  /** Renumber refs densely for the model (see snapshot-refs.ts); answers are resolved through `refs`. */
  shortRefs?: boolean;
}

/** Fewer matches shown until the answer `fits`: 8, then 4, 2, 1 (the count of all matches is always said). */
const maxFound = [8, 4, 2, 1];

/** What the agent sees of the page: Playwright's AI-mode aria snapshot (iframes and shadow DOM included). */
export async function observe(page: Page, opts: ObserveOptions = {}): Promise<Observation> {
  const raw = await page.ariaSnapshot({ mode: 'ai' });
  const alias = (text: string, aliases = new RefAliases()) => (opts.shortRefs ? aliases.apply(text) : text);
  const measure = (text: string) => (opts.measure ?? ((t: string) => t.length))(alias(text));
  const maxChars = opts.maxChars ?? 6_000;
  // find's answer takes at most half of the budget: the page around it must still show.
  const found = opts.find !== undefined ? foundText(cleanLines(raw), opts.find, (text) => measure(text) <= maxChars / 2) : undefined;
  const budget = maxChars - (found ? measure(found) : 0);
  const { text, omitted } = compactSnapshot(raw, budget, measure);
  const aliases = new RefAliases();
  // The snapshot first, so its refs are numbered in reading order; `found` reuses them and adds its own.
  const snapshot = alias(text, aliases);
  return {
    url: redact(page.url(), opts.redact),
    title: redact(await page.title(), opts.redact),
    snapshot: redact(snapshot, opts.redact),
    omittedLines: omitted,
    ...(found !== undefined && { found: redact(alias(found, aliases), opts.redact) }),
    ...(opts.shortRefs && { refs: aliases }),
  };
}

export function foundText(lines: string[], query: string, fits: (text: string) => boolean = () => true): string {
  let text = '';
  for (const max of maxFound) {
    const { lines: found, matches, shown } = findInSnapshot(lines, query, max);
    if (matches === 0) return `Nothing on the page contains "${query}".`;
    const count = matches > shown ? `first ${shown} of ${matches} matches; a longer text narrows them` : `${matches} match${matches > 1 ? 'es' : ''}`;
    text = [`Found "${query}" (${count}):`, ...found].join('\n');
    if (fits(text)) break;
  }
  return text;
}

export function redact(text: string, secrets: Record<string, string> = {}): string {
  let out = text;
  for (const [name, value] of Object.entries(secrets)) {
    if (value.length >= 3) out = out.split(value).join(`{{${name}}}`);
  }
  return out;
}

const MAX_TEXT = 100;
// Last, a long run shows only its note: a page offered many tools still shows what follows its lists.
const SIBLINGS_KEPT = [25, 10, 5, 3, 2, 1, 0];
// Wrappers nobody acts on or asserts: an unnamed div, a table's row group, a row or cell that only holds others.
// Their refs cost tokens on every line of a large page; what they hold keeps its refs. A clickable one
// ([cursor=pointer]) keeps its ref.
const bareWrapper = /^(\s*- (?:generic|rowgroup|row|cell)) \[ref=[^\]]+\]:$/;

/** Pointer/url noise dropped, long text truncated, wrappers' refs dropped. */
function cleanLines(snapshot: string): string[] {
  return snapshot
    .split('\n')
    .map((line) => line.replace(/ \[active\]/g, ''))
    .map((line) => (line.includes(' [cursor=pointer]') ? line.replace(/ \[cursor=pointer\]/g, '') : line.replace(bareWrapper, '$1:')))
    .filter((line) => !/^\s*- \/url: /.test(line) || line.length < 80)
    .map((line) => (line.length > MAX_TEXT + 40 ? line.slice(0, MAX_TEXT + 40) + '…' : line));
}

/**
 * Shrinks a snapshot while keeping every actionable ref reachable: drops pointer/url noise, truncates long
 * text, collapses long runs of similar siblings, and as a last resort cuts plain text before elements.
 * `measure` counts the budget (characters unless given, e.g. the model's tokens).
 */
export function compactSnapshot(snapshot: string, maxChars: number, measure: (text: string) => number = (t) => t.length): { text: string; omitted: number } {
  const cleaned = cleanLines(snapshot);
  // Every line costs at least one character or token: a page with more lines than the budget is too large
  // without being measured (a large page's raw snapshot is 250 kB, slow to count in tokens).
  const size = (ls: string[]) => (ls.length > maxChars ? Infinity : measure(ls.join('\n')));
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
  const note = (n: number) => `# ${n} more lines not shown (find shows them by text; or scroll)`;
  if (size(lines) > maxChars) {
    const budget = maxChars - measure(note(lines.length)) - 1;
    let total = 0;
    const kept: string[] = [];
    for (const line of lines) {
      const cost = measure(line) + 1;
      if (total + cost > budget) break;
      kept.push(line);
      total += cost;
    }
    omitted += lines.length - kept.length;
    lines = kept;
  }
  if (omitted > 0) lines.push(note(omitted));
  return { text: lines.join('\n'), omitted };
}
