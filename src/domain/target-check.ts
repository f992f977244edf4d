// Whether the element a replayed step used is the element it was recorded on. Pure rules: replay reads the
// element, these decide. Whatever found the element (the primary locator, a recorded fallback, an LLM heal),
// the same comparison runs, so no route to an element skips it.
import { parseLocator } from './locators.js';
import type { Step, StepTarget } from './steps.js';
import type { StepChange } from './verdicts.js';

/** The element as replay found it: its role and accessible name from the accessibility tree, and its text. */
export interface SeenElement {
  role: string;
  name?: string;
  text: string;
}

// Steps whose element is their expectation: the element must still show what was recorded.
const expectationSteps = new Set<Step['action']>(['assert_visible', 'wait_for']);

export function assertsElement(step: Step): boolean {
  return expectationSteps.has(step.action) && Boolean(step.locator);
}

export const flat = (text: string) => text.replace(/[\s\u00a0]+/g, ' ').trim();

// Names recorded before YAML quoting was undone were stored with their quotes (`"\"Saved: ok\""`).
function unquoted(name: string | undefined): string | undefined {
  if (!name) return undefined;
  const m = /^"((?:[^"\\]|\\.)*)"$/.exec(name);
  return m ? m[1]!.replace(/\\(.)/g, '$1') : name;
}

/** What the locator itself says: the text of `getByText('…')`, or the role and name of `getByRole`. */
export function locatorIntent(expression: string | undefined): { role?: string; name?: string } {
  try {
    const [first] = parseLocator(expression ?? '');
    const arg = first?.args[0];
    const options = first?.args[1];
    const name =
      typeof options === 'object' &&
      options !== null &&
      !(options instanceof RegExp) &&
      typeof options.name === 'string'
        ? options.name
        : undefined;
    if (first?.method === 'getByRole' && typeof arg === 'string') return { role: arg, ...(name && { name }) };
    if (first?.method === 'getByText' && typeof arg === 'string') return { name: arg };
  } catch {
    // an unparsable locator carries no intent to check
  }
  return {};
}

/** The recorded element: its target, else what its locators say (steps recorded before targets were kept). */
export function recordedTarget(step: Step): StepTarget | undefined {
  if (step.target)
    return { ...step.target, ...(step.target.name !== undefined && { name: unquoted(step.target.name) }) };
  for (const expression of [step.locator, ...(step.fallbacks ?? [])]) {
    const intent = locatorIntent(expression);
    if (intent.name || intent.role) return { role: intent.role ?? '', ...(intent.name && { name: intent.name }) };
  }
  return undefined;
}

/**
 * An assertion's expectation: the recorded element's accessible name, else the text a text locator names, else the
 * element's whole recorded text (a list item with no name of its own).
 */
export function expectationOf(step: Step): string | undefined {
  const target = recordedTarget(step);
  const byText = [step.locator, ...(step.fallbacks ?? [])]
    .map((e) => locatorIntent(e))
    .find((i) => !i.role && i.name)?.name;
  const expected = target?.name || byText || target?.text;
  return expected ? flat(expected) : undefined;
}

const wordChar = /[\p{L}\p{N}]/u;

/**
 * Whether `shown` shows `expected`: all of it, or it as a whole phrase inside (not a prefix of a longer word:
 * "Saved" is not shown by "Saved draft"-less "Unsaved"). Case and digits count: an expected "Total 10" is not
 * shown by "Total 100".
 */
export function showsText(shown: string, expected: string): boolean {
  const s = flat(shown);
  const e = flat(expected);
  if (!e) return true;
  for (let at = s.indexOf(e); at >= 0; at = s.indexOf(e, at + 1)) {
    const before = s[at - 1];
    const after = s[at + e.length];
    if (
      (!before || !wordChar.test(before) || !wordChar.test(e[0]!)) &&
      (!after || !wordChar.test(after) || !wordChar.test(e[e.length - 1]!))
    )
      return true;
  }
  return false;
}

/** Whether the element shows the step's expectation in its name or its text. */
export function showsExpectation(step: Step, seen: SeenElement): boolean {
  const expected = expectationOf(step);
  if (!expected) return true;
  return showsText(seen.name ?? '', expected) || showsText(seen.text, expected);
}

// Labels that differ only in counts and spacing ("Cart (2)" / "Cart (3)") are the same label.
const label = (name: string | undefined) =>
  flat(name ?? '')
    .replace(/\d+/g, '#')
    .toLowerCase();

const words = (name: string) =>
  new Set(
    label(name)
      .split(/[^\p{L}\p{N}#]+/u)
      .filter((w) => w.length > 1 || /\p{N}|#/u.test(w)),
  );

/** Whether two labels share a word: "Save" and "Save changes" do, "Save" and "Delete account" do not. */
export function sharesWord(a: string, b: string): boolean {
  const theirs = words(b);
  return [...words(a)].some((w) => theirs.has(w));
}

const describe = (role: string, name?: string) => (name ? `the ${role} "${name}"` : `the ${role || 'element'}`);

/**
 * How the element a step used differs from the recorded one. A lost accessible name or a changed role is a
 * regression (a screen reader announces something else; `getByLabel` finds nothing). A changed label is a change:
 * cosmetic while it keeps a word of the old one ("Sign in" → "Sign in now"); one that keeps none may be another
 * control or a translation, which replay cannot tell apart, so it weighs as a regression until a person accepts it.
 */
export function compareTarget(index: number, step: Step, seen: SeenElement): StepChange[] {
  // Without a recorded target (steps from before targets were kept) its locators are alternatives, and the one that
  // matched found the element by its own role and name: there is nothing else to compare it with.
  if (!step.target) return [];
  const recorded = recordedTarget(step)!;
  const changes: StepChange[] = [];
  if (recorded.role && seen.role !== recorded.role) {
    changes.push({
      stepIndex: index,
      field: 'role',
      from: recorded.role,
      to: seen.role,
      severity: 'regression',
      summary: `${describe(recorded.role, recorded.name)} is now ${seen.role === 'generic' ? 'a generic element with no role' : `a ${seen.role}`}`,
    });
  }
  const name = recorded.name;
  // An assertion's name is its expectation, checked on its own (showsExpectation): a mismatch fails the step.
  if (name && !assertsElement(step) && label(seen.name) !== label(name)) {
    const role = recorded.role || seen.role;
    if (!seen.name?.trim()) {
      changes.push({
        stepIndex: index,
        field: 'name',
        from: name,
        to: null,
        severity: 'regression',
        summary: `${describe(role, name)} lost its accessible name`,
      });
    } else {
      changes.push({
        stepIndex: index,
        field: 'name',
        from: name,
        to: seen.name,
        severity: sharesWord(name, seen.name) ? 'cosmetic' : 'regression',
        summary: `${describe(role, name)} is now named "${seen.name}"`,
      });
    }
  }
  return changes;
}
