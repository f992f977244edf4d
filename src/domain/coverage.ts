// The coverage map (issue 34): for every page pattern and form a discovery found, which enabled tests visit it, act
// on it and assert on it, read from their recorded steps, and when each last passed. Pure: the caller loads the
// latest discovery's map and the enabled tests; the API serves the result and the suggestions read it.
import type { DiscoveredForm } from './discovery.js';
import { parseLocator } from './locators.js';
import { patternOf } from './page-patterns.js';
import { pagesOfSteps } from './step-pages.js';
import type { Step, StepAction } from './steps.js';

/** A page pattern of the map, as the coverage and the suggestions read it. */
export interface MapPattern {
  pattern: string;
  /** One page of the pattern the discovery visited (path and query): where a suggested test starts. */
  example?: string;
  title?: string;
  /** Links followed from the discovery's start page to reach it (0: the start page). */
  depth?: number;
  /** How many other patterns link to it. */
  linksIn?: number;
  /** The main document's status on its visit (0: it did not load). */
  status?: number;
  forms: DiscoveredForm[];
}

/** An enabled test case as the coverage reads it. */
export interface CoveredTest {
  id: string;
  name: string;
  steps: readonly Step[];
  /** Where it starts (a resumed test: where its dependency ended), absolute. */
  startUrl: string;
  /** ISO time of its last passing run, null when it never passed. */
  lastPassedAt: string | null;
}

/** A test's use of a pattern or form: which of its steps (0-based) do so. */
export interface TestUse {
  testId: string;
  name: string;
  lastPassedAt: string | null;
  steps: number[];
}

export interface PatternCoverage {
  pattern: string;
  visitedBy: TestUse[];
  /** Clicks, fills, selections, key presses... on the pattern's pages. */
  actedOnBy: TestUse[];
  /** `assert_*` steps on the pattern's pages. */
  assertedBy: TestUse[];
  /** The latest pass of a test visiting it, null when none passed. */
  lastPassedAt: string | null;
  /** Some enabled test visits it. */
  covered: boolean;
  /** The ids (`formId`) of the forms on it. */
  forms: string[];
}

export interface FormCoverage {
  id: string;
  key: string;
  name: string;
  method: DiscoveredForm['method'];
  action: string;
  /** The patterns it is on (a form of a layout, a header search, is on many). */
  patterns: string[];
  /** Tests that fill, select, check or press one of its fields, or operate its submit control, on one of its patterns. */
  actedOnBy: TestUse[];
  /** Of those, the tests that operate its submit control. */
  submittedBy: TestUse[];
  /** Of those, the tests with an `assert_*` step after they first act on it: they check what it did. */
  assertedBy: TestUse[];
  lastPassedAt: string | null;
  /** Some enabled test acts on it. */
  covered: boolean;
}

export interface Coverage {
  patterns: PatternCoverage[];
  forms: FormCoverage[];
  totals: {
    patterns: { total: number; covered: number; uncovered: number; actedOn: number; asserted: number };
    forms: { total: number; covered: number; uncovered: number; submitted: number; asserted: number };
  };
  /** Patterns the tests visit that the map does not have (the discovery did not reach them), with the tests. */
  outsideMap: { pattern: string; testIds: string[] }[];
}

/** Actions that operate the page (not navigations, checks, scrolls or tab switches). */
export const actingActions: ReadonlySet<StepAction> = new Set([
  'click',
  'dblclick',
  'fill',
  'type',
  'select',
  'check',
  'uncheck',
  'press',
  'upload',
  'drag',
  'hover',
]);
const submitActions: ReadonlySet<StepAction> = new Set(['click', 'dblclick', 'press']);

/**
 * One form across the patterns it is on: the same key and action (a layout's form) are the same form; the key alone
 * is stable only within a pattern, so two forms of one name posting to different places stay apart.
 */
export const formId = (form: Pick<DiscoveredForm, 'key' | 'action'>): string => `${form.key}@${form.action}`;

/** Names compared as a person reads them: case, spacing and a trailing required mark or colon do not count. */
export const sameName = (name: string): string =>
  name
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[\s*:]+$/, '')
    .trim();

/** The names a step's element goes by: its recorded accessible name, and those its locators name it by. */
export function stepElementNames(step: Step): Set<string> {
  const names = new Set<string>();
  const add = (v: unknown) => {
    if (typeof v === 'string' && sameName(v)) names.add(sameName(v));
  };
  add(step.target?.name);
  for (const expression of [step.locator, ...(step.fallbacks ?? [])]) {
    if (!expression) continue;
    let calls;
    try {
      calls = parseLocator(expression);
    } catch {
      continue;
    }
    for (const call of calls) {
      const [first, second] = call.args;
      if (call.method === 'getByRole' && second && typeof second === 'object' && !(second instanceof RegExp))
        add(second.name);
      else if (['getByLabel', 'getByPlaceholder', 'getByText', 'getByTitle', 'getByTestId'].includes(call.method))
        add(first);
      else if (call.method === 'locator' && typeof first === 'string') {
        for (const m of first.matchAll(/\[name=["']?([^"'\]]+)["']?\]/g)) add(m[1]);
        for (const m of first.matchAll(/#([A-Za-z][\w-]*)/g)) add(m[1]);
      }
    }
  }
  return names;
}

interface StepOnPage {
  test: CoveredTest;
  /** The test's position in the input: uses are listed in that order. */
  position: number;
  index: number;
  step: Step;
  pattern: string;
}

/** The coverage of `map` by `tests` (the enabled ones). `baseUrl`: the application's origin, as the steps were recorded against it. */
export function computeCoverage(map: readonly MapPattern[], tests: readonly CoveredTest[], baseUrl: string): Coverage {
  const onPages: StepOnPage[] = tests.flatMap((test, position) =>
    pagesOfSteps(test.steps, test.startUrl, baseUrl).flatMap(({ page }, index) =>
      page?.startsWith('/') ? [{ test, position, index, step: test.steps[index]!, pattern: patternOf(page) }] : [],
    ),
  );
  // Indexed once: a map of a thousand patterns and tests of thousands of steps stays linear.
  const byPattern = new Map<string, StepOnPage[]>();
  for (const s of onPages) {
    const list = byPattern.get(s.pattern);
    if (list) list.push(s);
    else byPattern.set(s.pattern, [s]);
  }
  const names = new Map<StepOnPage, Set<string>>();
  const namesOf = (s: StepOnPage) => names.get(s) ?? names.set(s, stepElementNames(s.step)).get(s)!;
  const known = new Set(map.map((p) => p.pattern));
  const formsById = new Map<string, { form: DiscoveredForm; patterns: string[] }>();
  for (const p of map)
    for (const form of p.forms) {
      const entry = formsById.get(formId(form)) ?? { form, patterns: [] };
      if (!entry.patterns.includes(p.pattern)) entry.patterns.push(p.pattern);
      formsById.set(formId(form), entry);
    }

  const patterns = map.map((p): PatternCoverage => {
    const here = byPattern.get(p.pattern) ?? [];
    const visitedBy = uses(here);
    return {
      pattern: p.pattern,
      visitedBy,
      actedOnBy: uses(here.filter((s) => actingActions.has(s.step.action))),
      assertedBy: uses(here.filter((s) => s.step.action.startsWith('assert_'))),
      lastPassedAt: latest(visitedBy),
      covered: visitedBy.length > 0,
      forms: [...new Set(p.forms.map(formId))],
    };
  });

  const forms = [...formsById.entries()].map(([id, { form, patterns: on }]): FormCoverage => {
    const target = formNames(form);
    const acts = (s: StepOnPage) => formAction(namesOf(s), s.step.action, target);
    const acting = on
      .flatMap((pattern) => byPattern.get(pattern) ?? [])
      .filter((s) => acts(s) !== undefined)
      .sort((a, b) => a.position - b.position || a.index - b.index);
    const submitting = acting.filter((s) => acts(s) === 'submit');
    const firstAct = new Map<CoveredTest, number>();
    for (const s of acting) if (!firstAct.has(s.test)) firstAct.set(s.test, s.index);
    const checking = [...firstAct].flatMap(([test, first]) =>
      test.steps.flatMap((step, index) =>
        index > first && step.action.startsWith('assert_') ? [{ test, index }] : [],
      ),
    );
    const actedOnBy = uses(acting);
    return {
      id,
      key: form.key,
      name: form.name,
      method: form.method,
      action: form.action,
      patterns: on,
      actedOnBy,
      submittedBy: uses(submitting),
      assertedBy: uses(checking),
      lastPassedAt: latest(actedOnBy),
      covered: actedOnBy.length > 0,
    };
  });

  const outside = new Map<string, Set<string>>();
  for (const s of onPages)
    if (!known.has(s.pattern)) outside.set(s.pattern, (outside.get(s.pattern) ?? new Set()).add(s.test.id));

  const count = <T>(items: T[], ok: (t: T) => boolean) => items.filter(ok).length;
  return {
    patterns,
    forms,
    totals: {
      patterns: {
        total: patterns.length,
        covered: count(patterns, (p) => p.covered),
        uncovered: count(patterns, (p) => !p.covered),
        actedOn: count(patterns, (p) => p.actedOnBy.length > 0),
        asserted: count(patterns, (p) => p.assertedBy.length > 0),
      },
      forms: {
        total: forms.length,
        covered: count(forms, (f) => f.covered),
        uncovered: count(forms, (f) => !f.covered),
        submitted: count(forms, (f) => f.submittedBy.length > 0),
        asserted: count(forms, (f) => f.assertedBy.length > 0),
      },
    },
    outsideMap: [...outside.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([pattern, ids]) => ({ pattern, testIds: [...ids] })),
  };
}

/** Whether the step operates one of the form's fields or its submit control (matched by name), and which. */
export function actsOnForm(step: Step, form: DiscoveredForm): 'field' | 'submit' | undefined {
  return formAction(stepElementNames(step), step.action, formNames(form));
}

interface FormNames {
  submit: string | null;
  fields: Set<string>;
}

function formNames(form: DiscoveredForm): FormNames {
  return {
    submit: form.submit ? sameName(form.submit) : null,
    fields: new Set(form.fields.flatMap((f) => [f.label, f.name].map(sameName).filter(Boolean))),
  };
}

function formAction(names: Set<string>, action: StepAction, form: FormNames): 'field' | 'submit' | undefined {
  if (!actingActions.has(action)) return undefined;
  if (form.submit && submitActions.has(action) && names.has(form.submit)) return 'submit';
  for (const name of names) if (form.fields.has(name)) return 'field';
  return undefined;
}

/** Steps grouped per test, in the tests' order, each test once. */
function uses(steps: { test: CoveredTest; index: number }[]): TestUse[] {
  const byTest = new Map<string, TestUse>();
  for (const { test, index } of steps) {
    const use = byTest.get(test.id) ?? { testId: test.id, name: test.name, lastPassedAt: test.lastPassedAt, steps: [] };
    if (!use.steps.includes(index)) use.steps.push(index);
    byTest.set(test.id, use);
  }
  return [...byTest.values()];
}

function latest(used: TestUse[]): string | null {
  return used.reduce<string | null>(
    (max, u) => (u.lastPassedAt !== null && (max === null || u.lastPassedAt > max) ? u.lastPassedAt : max),
    null,
  );
}
