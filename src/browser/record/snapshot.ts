import type { Page } from 'playwright-core';
import { RefAliases } from './snapshot-refs.js';
import { collapseSiblings, findInSnapshot } from './snapshot-tree.js';
import { pageSections } from './snapshot-landmarks.js';

export interface Observation {
  url: string;
  title: string;
  /** The aria snapshot with element refs (`[ref=e12]`), compacted. */
  snapshot: string;
  /** Lines dropped by compaction, so the model knows the page is larger than what it sees. */
  omittedLines: number;
  /** With `find`: the page's elements matching each query, with their refs, whether compaction hid them or not. */
  found?: string;
  /** With `find`: the queries that still match something on the page (the ones worth showing again). */
  stillFound?: string[];
  /** With `shortRefs`: the aliases the snapshot and `found` use, mapped back to Playwright's refs. */
  refs?: RefAliases;
}

export interface ObserveOptions {
  /** Upper bound of the snapshot (and `found`) as `measure` counts; about 4 characters a token by default. */
  maxChars?: number;
  /** How `maxChars` is counted, e.g. in the model's tokens (the agent's prompt budget). Default: characters. */
  measure?: (text: string) => number;
  /** Whether a text is within a limit as `measure` counts, when that can be told more cheaply than by measuring it. */
  fits?: (text: string, limit: number) => boolean;
  /** Values that must never leave the worker (secret configs): replaced by `{{NAME}}`. */
  redact?: Record<string, string>;
  /**
   * Texts the agent asked for (its `find` tool), oldest first: matching elements are listed from the whole
   * snapshot. A single string is a find just asked, answered even with nothing; a list holds earlier finds too,
   * shown only while they match, and `findAsked` (if any) is the one just asked.
   */
  find?: string | string[];
  findAsked?: string;
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
  const fits = opts.fits
    ? (text: string, limit: number) => opts.fits!(alias(text), limit)
    : (text: string, limit: number) => measure(text) <= limit;
  const maxChars = opts.maxChars ?? 6_000;
  const asked = typeof opts.find === 'string' ? opts.find : opts.findAsked;
  const queries = [
    ...(Array.isArray(opts.find) ? opts.find : []).filter((q) => q !== asked),
    ...(asked !== undefined ? [asked] : []),
  ];
  // find's answers take at most half of the budget: the page around them must still show.
  const answer = queries.length
    ? foundAnswers(cleanLines(raw), queries, asked, (text) => fits(text, maxChars / 2))
    : undefined;
  const found = answer?.text;
  const budget = maxChars - (found ? measure(found) : 0);
  const { text, omitted } = compactSnapshot(raw, budget, measure, fits);
  const aliases = new RefAliases();
  // The snapshot first, so its refs are numbered in reading order; `found` reuses them and adds its own.
  const snapshot = alias(text, aliases);
  return {
    url: redact(page.url(), opts.redact),
    title: redact(await page.title(), opts.redact),
    snapshot: redact(snapshot, opts.redact),
    omittedLines: omitted,
    ...(found !== undefined && { found: redact(alias(found, aliases), opts.redact), stillFound: answer!.stillFound }),
    ...(opts.shortRefs && { refs: aliases }),
  };
}

/** Every query's answer, oldest first; an earlier query that matches nothing any more is left out, unsaid. */
function foundAnswers(
  lines: string[],
  queries: string[],
  asked: string | undefined,
  fits: (text: string) => boolean,
): { text: string; stillFound: string[] } {
  let answers: { query: string; text?: string }[] = [];
  for (const max of maxFound) {
    answers = queries.map((query) => {
      const text = foundText(lines, query, () => true, [max]);
      return { query, ...((query === asked || !text.startsWith('Nothing on the page')) && { text }) };
    });
    if (
      fits(
        answers
          .map((a) => a.text ?? '')
          .filter(Boolean)
          .join('\n'),
      )
    )
      break;
  }
  return {
    text: answers
      .map((a) => a.text ?? '')
      .filter(Boolean)
      .join('\n'),
    stillFound: answers
      .filter((a) => a.text !== undefined && !a.text.startsWith('Nothing on the page'))
      .map((a) => a.query),
  };
}

/** One query's answer: its matching elements, as many of them as `fits`. */
export function foundText(
  lines: string[],
  query: string,
  fits: (text: string) => boolean = () => true,
  sizes = maxFound,
): string {
  let text = '';
  for (const max of sizes) {
    const { lines: found, matches, shown } = findInSnapshot(lines, query, max);
    if (matches === 0) return `Nothing on the page contains "${query}".`;
    const count =
      matches > shown
        ? `first ${shown} of ${matches} matches; a longer text narrows them`
        : `${matches} match${matches > 1 ? 'es' : ''}`;
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
    .map((line) =>
      line.includes(' [cursor=pointer]') ? line.replace(/ \[cursor=pointer\]/g, '') : line.replace(bareWrapper, '$1:'),
    )
    .filter((line) => !/^\s*- \/url: /.test(line) || line.length < 80)
    .map((line) => (line.length > MAX_TEXT + 40 ? line.slice(0, MAX_TEXT + 40) + '…' : line));
}

/**
 * Shrinks a snapshot while keeping every actionable ref reachable. A page that fits is shown whole, in document
 * order. A larger one is shown by landmarks (snapshot-landmarks.ts): dialogs and alerts, then `main`, then the rest.
 * It degrades in this order, stopping as soon as it fits: long runs of same-shaped siblings collapse to 25 (a list
 * scrolled to its 35th entry still shows it); banner, navigation, sidebars and footers shrink to one line each;
 * runs collapse further (10, 5, … 0); then the rest loses its plain text and its last lines; only then `main` (and
 * last the dialogs) lose theirs. `measure` counts the budget (characters unless given, e.g. the model's tokens).
 */
export function compactSnapshot(
  snapshot: string,
  maxChars: number,
  measure: (text: string) => number = (t) => t.length,
  /** `measure(text) <= limit`, told more cheaply where it can be (a small text within a token budget). */
  fitsWithin: (text: string, limit: number) => boolean = (t, limit) => measure(t) <= limit,
): { text: string; omitted: number } {
  const cleaned = cleanLines(snapshot);
  // Every line costs at least one character or token: a page with more lines than the budget is too large
  // without being measured (a large page's raw snapshot is 250 kB, slow to count in tokens).
  const within = (ls: string[]) => ls.length <= maxChars && fitsWithin(ls.join('\n'), maxChars);
  if (within(cleaned)) return { text: cleaned.join('\n'), omitted: 0 };
  const sections = pageSections(cleaned);
  const compose = (summarized: boolean, keep: number) => ({
    first: collapseSiblings([...sections.urgent, ...sections.main], keep),
    rest: collapseSiblings(sections.rest(summarized), keep),
  });
  let parts = compose(false, SIBLINGS_KEPT[0]!);
  const fits = () => within([...parts.first, ...parts.rest]);
  for (const keep of fits() ? [] : SIBLINGS_KEPT) {
    parts = compose(sections.hasPeripherals, keep);
    if (fits()) break;
  }
  let omitted = 0;
  // Text without a ref cannot be acted on: it goes first, from the rest before main.
  const dropText = (lines: string[]) => lines.filter((l) => /\[ref=/.test(l) || !/^\s*- text: /.test(l));
  for (const part of ['rest', 'first'] as const) {
    if (fits()) break;
    const before = parts[part].length;
    parts[part] = dropText(parts[part]);
    omitted += before - parts[part].length;
  }
  const note = (n: number) => `# ${n} more lines not shown (find shows them by text; or scroll)`;
  // Last, lines are cut from the end: of the rest first, then of main.
  for (const part of ['rest', 'first'] as const) {
    if (fits()) break;
    const other = part === 'rest' ? parts.first : parts.rest;
    const budget =
      maxChars - (other.length ? measure(other.join('\n')) + 1 : 0) - measure(note(parts[part].length)) - 1;
    const kept = cutTail(parts[part], budget, measure);
    const cut = parts[part].length - kept.length;
    omitted += cut;
    parts[part] = cut > 0 ? [...kept, note(cut)] : kept;
  }
  return { text: [...parts.first, ...parts.rest].join('\n'), omitted };
}

/** The first lines that fit `budget`. */
function cutTail(lines: string[], budget: number, measure: (text: string) => number): string[] {
  let total = 0;
  const kept: string[] = [];
  for (const line of lines) {
    const cost = measure(line) + 1;
    if (total + cost > budget) break;
    kept.push(line);
    total += cost;
  }
  return kept;
}
