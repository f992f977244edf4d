// A discovery's map (issue 34): its visited pages grouped by page pattern, with what the pattern's pages showed
// (titles, forms, actions) and the links between patterns; and the diff of two maps. Pure: built from the stored
// page rows, never with the model.
import type { DiscoveredAction, DiscoveredForm, VisitedPage } from './discovery.js';

/** A stored visit, as the map reads it. */
export type MapSourcePage = Omit<VisitedPage, 'actionsUsed' | 'operated'>;

export interface MapPattern {
  pattern: string;
  pages: { url: string; finalUrl: string; status: number; title: string; error: string | null }[];
  /** Headings of its pages, first seen first, without repeats. */
  headings: string[];
  /** Its forms, one per key. */
  forms: DiscoveredForm[];
  /** Its controls, one per role and name. */
  actions: DiscoveredAction[];
  /** Patterns its pages link to (itself excluded), sorted. */
  linksTo: string[];
}

export interface DiscoveryMap {
  patterns: MapPattern[];
  /** Every link between two patterns, once. */
  links: { from: string; to: string }[];
}

function uniqueBy<T>(items: T[], key: (item: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const item of items) if (!seen.has(key(item))) seen.set(key(item), item);
  return [...seen.values()];
}

/** Groups the pages by pattern; `patternOf` names the pattern of a link to a page that was not visited. */
export function buildDiscoveryMap(pages: MapSourcePage[], patternOf: (url: string) => string): DiscoveryMap {
  const patternOfUrl = new Map<string, string>();
  for (const p of pages) {
    patternOfUrl.set(p.url, p.pattern);
    patternOfUrl.set(p.finalUrl, p.pattern);
  }
  const linkPattern = (url: string) => patternOfUrl.get(url) ?? patternOf(url);
  const byPattern = new Map<string, MapSourcePage[]>();
  for (const p of pages) byPattern.set(p.pattern, [...(byPattern.get(p.pattern) ?? []), p]);
  const patterns = [...byPattern.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([pattern, group]): MapPattern => ({
      pattern,
      pages: group.map(({ url, finalUrl, status, title, error }) => ({ url, finalUrl, status, title, error })),
      headings: [...new Set(group.flatMap((p) => p.headings))],
      forms: uniqueBy(
        group.flatMap((p) => p.forms),
        (f) => f.key,
      ),
      actions: uniqueBy(
        group.flatMap((p) => p.actions),
        (a) => `${a.role}\u0000${a.name}`,
      ),
      linksTo: [...new Set(group.flatMap((p) => p.links.map(linkPattern)))].filter((t) => t !== pattern).sort(),
    }));
  return { patterns, links: patterns.flatMap((p) => p.linksTo.map((to) => ({ from: p.pattern, to }))) };
}

export interface FormChange {
  pattern: string;
  name: string;
  before: DiscoveredForm;
  after: DiscoveredForm;
}

export interface DiscoveryDiff {
  patterns: { added: string[]; removed: string[]; changed: { pattern: string; what: string[] }[] };
  forms: {
    added: { pattern: string; form: DiscoveredForm }[];
    removed: { pattern: string; form: DiscoveredForm }[];
    /** The same form (pattern, name and method) with other fields or another submit control. */
    changed: FormChange[];
  };
}

const formIdentity = (f: DiscoveredForm) => `${f.name}\u0000${f.method}`;
const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** What `after` has that `before` had not, and the other way round; "changed" for a pattern in both that differs. */
export function diffDiscoveryMaps(before: DiscoveryMap, after: DiscoveryMap): DiscoveryDiff {
  const old = new Map(before.patterns.map((p) => [p.pattern, p]));
  const now = new Map(after.patterns.map((p) => [p.pattern, p]));
  const diff: DiscoveryDiff = {
    patterns: {
      added: [...now.keys()].filter((p) => !old.has(p)),
      removed: [...old.keys()].filter((p) => !now.has(p)),
      changed: [],
    },
    forms: { added: [], removed: [], changed: [] },
  };
  for (const [pattern, a] of now) {
    const b = old.get(pattern);
    const beforeForms = b?.forms ?? [];
    const afterKeys = new Set(a.forms.map((f) => f.key));
    const beforeKeys = new Set(beforeForms.map((f) => f.key));
    const gone = beforeForms.filter((f) => !afterKeys.has(f.key));
    const fresh = a.forms.filter((f) => !beforeKeys.has(f.key));
    for (const form of fresh) {
      const was = gone.find((g) => formIdentity(g) === formIdentity(form));
      if (was) diff.forms.changed.push({ pattern, name: form.name, before: was, after: form });
      else diff.forms.added.push({ pattern, form });
    }
    const changedNames = new Set(
      diff.forms.changed.filter((c) => c.pattern === pattern).map((c) => formIdentity(c.before)),
    );
    for (const form of gone) if (!changedNames.has(formIdentity(form))) diff.forms.removed.push({ pattern, form });
    if (!b) continue;
    const what = [
      ...(fresh.length > 0 || gone.length > 0 ? ['forms'] : []),
      ...(sameList(
        a.actions.map((x) => `${x.role}:${x.name}`).sort(),
        b.actions.map((x) => `${x.role}:${x.name}`).sort(),
      )
        ? []
        : ['actions']),
      ...(sameList(a.linksTo, b.linksTo) ? [] : ['links']),
      ...(sameList([...a.headings].sort(), [...b.headings].sort()) ? [] : ['headings']),
    ];
    if (what.length > 0) diff.patterns.changed.push({ pattern, what });
  }
  for (const [pattern, b] of old)
    if (!now.has(pattern)) for (const form of b.forms) diff.forms.removed.push({ pattern, form });
  return diff;
}
