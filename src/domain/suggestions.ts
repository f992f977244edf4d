// Suggested tests (issue 34), from the map and its coverage alone: each form no enabled test acts on, and each
// important page no enabled test visits, becomes a candidate; what it would cover gives it a fingerprint, so a
// suggestion rejected once is never proposed again; candidates are ranked. The model only words them
// (src/llm/discovery-suggest.ts); `defaultWording` words them in plain words when it cannot.
import { formId, type Coverage, type FormCoverage, type MapPattern } from './coverage.js';
import type { DiscoveredForm } from './discovery.js';

export interface SuggestionCandidate {
  /** Stable across discoveries: a hash of what it would cover (see `suggestionFingerprint`). */
  fingerprint: string;
  kind: 'form' | 'page';
  /** Where its burn-in starts: a page of its pattern the discovery visited (path and query). */
  startPage: string;
  /** The patterns it would cover, its start page's first. */
  patterns: string[];
  /** The forms (`formId`) it would cover. */
  forms: string[];
  /** The form it is about (kind `form`). */
  form?: DiscoveredForm;
  /** Its start page's title, as the discovery saw it. */
  title?: string;
  /** Higher first: forms before pages, POST over GET, more fields and deeper pages first. */
  score: number;
}

/** A candidate in words: what a test case is created from when the suggestion is accepted. */
export interface SuggestionWording {
  name: string;
  goal: string;
  expectedResult: string;
  reason: string;
}

// FNV-1a, 64 bits: pure and deterministic (the domain imports no node module), ample for a project's suggestions.
function fnv1a64(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, '0');
}

/** What a suggestion covers, as a short stable id: the same form or page gives the same fingerprint in every discovery. */
export function suggestionFingerprint(covers: { patterns: readonly string[]; forms: readonly string[] }): string {
  const what = covers.forms.length > 0 ? covers.forms.map((f) => `form:${f}`) : covers.patterns.map((p) => `page:${p}`);
  return fnv1a64([...what].sort().join('\n'));
}

const maxDepthBonus = 5;
const methodScore: Record<DiscoveredForm['method'], number> = { post: 40, dialog: 20, get: 10 };

function formScore(form: DiscoveredForm, depth: number): number {
  const required = form.fields.filter((f) => f.required).length;
  return (
    100 +
    methodScore[form.method] -
    (form.search ? 30 : 0) +
    Math.min(form.fields.length, 10) * 2 +
    Math.min(required, 10) +
    Math.min(depth, maxDepthBonus) * 3
  );
}

function pageScore(pattern: MapPattern): number {
  return 50 + Math.min(pattern.linksIn ?? 0, 10) + Math.min(pattern.depth ?? 0, maxDepthBonus) * 3;
}

const loaded = (p: MapPattern) => p.status === undefined || (p.status >= 200 && p.status < 400);
// A page a user reaches in a click or two, or that many pages link to: worth a test of its own.
const important = (p: MapPattern) => loaded(p) && ((p.depth ?? 0) <= 2 || (p.linksIn ?? 0) >= 2);

/** Where a test of the pattern starts: a page the discovery visited, else the pattern itself when it has no ids. */
const startOf = (p: MapPattern): string | undefined => p.example ?? (p.pattern.includes('{') ? undefined : p.pattern);

/** What a discovery found that the application's previous completed discovery had not: patterns and `formId`s. */
export interface FreshItems {
  patterns: ReadonlySet<string>;
  forms: ReadonlySet<string>;
}

/**
 * The suggestions the map calls for, best first: one per form no enabled test acts on (started on its shallowest
 * pattern), one per important page no test visits and no form suggestion covers. `known`: fingerprints not to
 * propose (rejected, or already suggested or accepted). `fresh`: what is new since the previous discovery; a new
 * page is suggested however deep it is, and what is new is kept beyond `max` (issue 34: each new page or form of a
 * scheduled discovery becomes a suggestion).
 */
export function suggestionCandidates(
  map: readonly MapPattern[],
  coverage: Coverage,
  opts: { known?: ReadonlySet<string>; max?: number; fresh?: FreshItems } = {},
): SuggestionCandidate[] {
  const isFresh = (c: Pick<SuggestionCandidate, 'patterns' | 'forms' | 'kind'>) =>
    c.kind === 'form'
      ? c.forms.some((f) => opts.fresh?.forms.has(f))
      : c.patterns.some((p) => opts.fresh?.patterns.has(p));
  const byPattern = new Map(map.map((p) => [p.pattern, p]));
  const depthOf = (pattern: string) => byPattern.get(pattern)?.depth ?? Number.MAX_SAFE_INTEGER;
  const out: SuggestionCandidate[] = [];
  const coveredByForms = new Set<string>();
  for (const form of coverage.forms.filter((f) => !f.covered)) {
    const candidate = formCandidate(form, byPattern, depthOf);
    if (!candidate) continue;
    coveredByForms.add(candidate.patterns[0]!);
    out.push(candidate);
  }
  for (const p of coverage.patterns) {
    const pattern = byPattern.get(p.pattern);
    if (p.covered || !pattern || coveredByForms.has(p.pattern)) continue;
    if (!important(pattern) && !(loaded(pattern) && opts.fresh?.patterns.has(p.pattern))) continue;
    const start = startOf(pattern);
    if (start === undefined) continue;
    const covers = { patterns: [p.pattern], forms: [] };
    out.push({
      fingerprint: suggestionFingerprint(covers),
      kind: 'page',
      startPage: start,
      ...covers,
      ...(pattern.title && { title: pattern.title }),
      score: pageScore(pattern),
    });
  }
  const ranked = out
    .filter((c) => !opts.known?.has(c.fingerprint))
    .sort(
      (a, b) =>
        b.score - a.score || a.startPage.localeCompare(b.startPage) || a.fingerprint.localeCompare(b.fingerprint),
    );
  // Every new one, and the best of the rest up to `max` in all: what is new is never cut.
  let room = Math.max(0, (opts.max ?? 50) - ranked.filter(isFresh).length);
  return ranked.filter((c) => isFresh(c) || room-- > 0);
}

function formCandidate(
  coverage: FormCoverage,
  byPattern: Map<string, MapPattern>,
  depthOf: (pattern: string) => number,
): SuggestionCandidate | undefined {
  // Started where the form is reached soonest, on a page the discovery could load.
  const on = [...coverage.patterns]
    .filter((p) => byPattern.has(p) && loaded(byPattern.get(p)!) && startOf(byPattern.get(p)!) !== undefined)
    .sort((a, b) => depthOf(a) - depthOf(b) || a.localeCompare(b));
  const pattern = on[0] === undefined ? undefined : byPattern.get(on[0]);
  const form = pattern?.forms.find((f) => formId(f) === coverage.id);
  if (!pattern || !form) return undefined;
  const covers = { patterns: [pattern.pattern], forms: [coverage.id] };
  return {
    fingerprint: suggestionFingerprint(covers),
    kind: 'form',
    startPage: startOf(pattern)!,
    ...covers,
    form,
    ...(pattern.title && { title: pattern.title }),
    score: formScore(form, pattern.depth ?? 0),
  };
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`);
const listed = (items: string[]) =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

/**
 * The candidate in plain words, from the map alone: what is written when the model is not asked or cannot answer.
 * `without`: why the model did not word it, said in the reason.
 */
export function defaultWording(c: SuggestionCandidate, without?: string): SuggestionWording {
  const note = without ? ` (written without the model: ${without})` : '';
  if (c.kind === 'form' && c.form) {
    const form = c.form;
    const fields = form.fields.map((f) => f.label || f.name).filter(Boolean);
    const submit = form.submit ? ` with "${form.submit}"` : '';
    if (form.search)
      return {
        name: clip(`Search with "${form.name}" on ${c.startPage}`, 80),
        goal: clip(`Open ${c.startPage}, search for a term the application has results for${submit}.`, 4000),
        expectedResult: 'Results matching the term are shown',
        reason: clip(`No enabled test uses this search form.${note}`, 1000),
      };
    return {
      name: clip(`Submit "${form.name}" on ${c.startPage}`, 80),
      goal: clip(
        `Open ${c.startPage}, fill in the "${form.name}" form${fields.length ? ` (${listed(fields)})` : ''} with valid values and submit it${submit}.`,
        4000,
      ),
      expectedResult: 'The form is accepted: the page confirms it and shows no error',
      reason: clip(
        `No enabled test fills or submits this ${form.method === 'dialog' ? 'dialog' : form.method.toUpperCase()} form.${note}`,
        1000,
      ),
    };
  }
  const page = c.title ? `"${c.title}" (${c.patterns[0]})` : c.patterns[0]!;
  return {
    name: clip(`Open ${c.title ?? c.patterns[0]}`, 80),
    goal: clip(`Open ${c.startPage} and check that the page shows its content.`, 4000),
    expectedResult: c.title ? `The page "${c.title}" shows, with no error` : 'The page shows, with no error',
    reason: clip(`No enabled test visits ${page}.${note}`, 1000),
  };
}
