import type { Locator, Page } from 'playwright-core';
import type { StepTarget } from '../../domain/steps.js';
import { quote } from '../../domain/locators.js';
import { resolveLocator } from '../locators.js';
import { indexOfElement, isElement, pageFunction } from '../page-function.js';
import { framePrefix } from '../../domain/locator-frames.js';
import { flat } from '../../domain/target-check.js';

export class UnknownRefError extends Error {
  override name = 'UnknownRefError';
}

export interface RecordedElement {
  locator: string;
  fallbacks: string[];
  target?: StepTarget;
}

// Names longer than this read as visible prose, which changes with every locale and copy edit.
const longText = 40;

/**
 * Turns a snapshot ref into durable locator expressions: Playwright's `normalize()` (role + accessible name,
 * label, test id ...) made unique on the page, plus structural fallbacks (test id, `name`, a hand-written id)
 * that point at the same element today and survive a translation. For an action, what carries meaning across
 * renders leads: a test id always, a structural locator ahead of long visible text.
 */
export async function locatorForRef(
  page: Page,
  ref: string,
  purpose: 'act' | 'assert' = 'act',
): Promise<RecordedElement> {
  const element = page.locator(`aria-ref=${ref}`);
  if ((await element.count().catch(() => 0)) === 0) {
    throw new UnknownRefError(`there is no element [ref=${ref}] on the page now; use a ref from the latest snapshot`);
  }
  return recordElement(page, element, purpose);
}

/** `locatorForRef` for an element already found (a drag's drop target, pinned before the refs were dropped). */
export async function recordElement(
  page: Page,
  element: Locator,
  purpose: 'act' | 'assert' = 'act',
): Promise<RecordedElement> {
  const normalized = (await element.normalize()).toString();
  // An element inside an iframe: its structural locators are relative to the same frame chain.
  const frame = framePrefix(normalized);
  const structural: string[] = [];
  for (const candidate of (await attributeLocators(element)).map((c) => `${frame}${c}`)) {
    if (await pointsAt(page, candidate, element)) structural.push(candidate);
  }
  let text = await unique(page, element, normalized);
  // Reading the aria snapshot of an element drops the page's refs: from here on the element is found by `text`.
  const self = resolveLocator(page, text);
  const target = await elementTarget(self);
  const own = flat(
    await self
      .first()
      .evaluate(ownText)
      .catch(() => ''),
  );
  const full = frame + untruncated(normalized.slice(frame.length), target, own);
  if (full !== normalized) {
    // Only when the whole text still finds the element (a text split across children may not).
    const whole = await unique(page, self, full);
    if ((await resolveLocator(page, whole).count()) > 0) text = whole;
  }
  const textIsWeak = /^getByText\(/.test(text.slice(frame.length)) || (target?.name?.length ?? 0) > longText;
  // An assertion's text is its expectation: it leads, and structural locators only help find the element.
  const leadsStructurally =
    purpose === 'act' && structural.length > 0 && (structural[0]!.startsWith(`${frame}getByTestId(`) || textIsWeak);
  const ordered = leadsStructurally ? [...structural.slice(0, 1), text, ...structural.slice(1)] : [text, ...structural];
  // Playwright names an element by its test id when it has one: keep its role and name too, for the day the id goes.
  if (text.startsWith(`${frame}getByTestId(`) && target?.name) {
    const named = `${frame}getByRole(${quote(target.role)}, { name: ${quote(target.name)} })`;
    if (await pointsAt(page, named, self)) ordered.push(named);
  }
  const [locator, ...fallbacks] = [...new Set(ordered)].slice(0, 4);
  return { locator: locator!, fallbacks, ...(target && { target }) };
}

// The element's own text, without its children's: a list item's message, not the Dismiss button inside it.
const ownText = pageFunction<(el: Element) => string>(
  "(el) => Array.from(el.childNodes).filter((n) => n.nodeType === 3).map((n) => n.textContent).join(' ')",
);

// Longer text is a container's, not an expectation: it is not kept.
const maxTargetText = 300;

/**
 * Role and name (or the text of a text-only element) from the element's aria snapshot, e.g. `- button "Sign in"`,
 * and its whole visible text when short: the expectation of an element with no name of its own (a list item).
 */
export async function elementTarget(element: Locator): Promise<StepTarget | undefined> {
  const [target, text] = await Promise.all([
    ariaTarget(element),
    element.innerText({ timeout: 2_000 }).catch(() => ''),
  ]);
  const shown = flat(text);
  if (!target || !shown || shown.length > maxTargetText || shown === target.name) return target;
  return { ...target, text: shown };
}

/** Role and name alone, from the element's aria snapshot: one round trip. */
export async function ariaTarget(element: Locator): Promise<StepTarget | undefined> {
  const snapshot = await element.ariaSnapshot({ timeout: 2_000 }).catch(() => '');
  return parseTargetLine(snapshot.split('\n')[0] ?? '');
}

export function parseTargetLine(line: string): StepTarget | undefined {
  const m = /^- ([\w-]+)(?: "((?:[^"\\]|\\.)*)")?[^:]*(?::\s*(.*))?$/.exec(line.trim());
  if (!m) return undefined;
  const name = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : yamlScalar(m[3]?.trim() ?? '') || undefined;
  return { role: m[1]!, ...(name && { name }) };
}

// The text after a role's colon is a YAML scalar: quoted when it holds a colon or a quote
// (`- status: "Saved: ok"`). Kept quoted, it never equals the page's text, and never restores a shortened locator.
function yamlScalar(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    try {
      return JSON.parse(value) as string;
    } catch {
      return value.slice(1, -1).replace(/\\(.)/g, '$1');
    }
  }
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) return value.slice(1, -1).replace(/''/g, "'");
  return value;
}

// Playwright shortens long text in the locators it generates (`getByText('Gruppe „QA Team“ wurde')`): a prefix
// that matches other messages and reads as a different one. Recorded locators carry the whole text: the name, or
// for an element without one (a list item holding a button too) the start of its text that the prefix begins.
function untruncated(expression: string, target: StepTarget | undefined, ownText: string): string {
  const m = /^(getByText\(|getByRole\('[\w-]+', \{ name: )'((?:[^'\\]|\\.)*)'/.exec(expression);
  if (!m) return expression;
  const shown = m[2]!.replace(/\\(.)/g, '$1');
  const full = [target?.name, ownText, target?.text].find(
    (t): t is string => Boolean(t) && t!.startsWith(shown) && t !== shown,
  );
  if (!full) return expression;
  return `${m[1]}${quote(full)}${expression.slice(m[0].length)}`;
}

// A normalized locator may match several elements (two "Delete" buttons): pin the index of ours.
async function unique(page: Page, element: Locator, expression: string): Promise<string> {
  const matches = resolveLocator(page, expression);
  const count = await matches.count();
  if (count <= 1) return expression;
  const handle = await element.elementHandle();
  const index = await matches.evaluateAll(indexOfElement, handle);
  await handle?.dispose();
  return index >= 0 ? `${expression}.nth(${index})` : `${expression}.first()`;
}

async function pointsAt(page: Page, expression: string, element: Locator): Promise<boolean> {
  try {
    const candidate = resolveLocator(page, expression);
    if ((await candidate.count()) !== 1) return false;
    const handle = await element.elementHandle();
    const same = await candidate.evaluate(isElement, handle);
    await handle?.dispose();
    return same;
  } catch {
    return false;
  }
}

// Generated ids (`:r1:`, `ember123`, hashed `r8k2x1q`) change between builds; ids a person wrote read as words.
function handWrittenId(id: string): boolean {
  return /^[A-Za-z][\w-]{0,39}$/.test(id) && (id.match(/\d/g)?.length ?? 0) < 3;
}

const structuralAttributes = pageFunction<
  (el: Element) => { testId: string | null; placeholder: string | null; name: string | null; id: string; tag: string }
>(
  "(el) => ({ testId: el.getAttribute('data-testid'), placeholder: el.getAttribute('placeholder'), name: el.getAttribute('name'), id: el.id, tag: el.tagName.toLowerCase() })",
);

/** Locators that do not depend on visible text, strongest first. */
async function attributeLocators(element: Locator): Promise<string[]> {
  const attrs = await element.evaluate(structuralAttributes);
  const out: string[] = [];
  if (attrs.testId) out.push(`getByTestId(${quote(attrs.testId)})`);
  if (attrs.name && ['input', 'select', 'textarea', 'button'].includes(attrs.tag))
    out.push(`locator(${quote(`${attrs.tag}[name="${attrs.name}"]`)})`);
  if (attrs.id && handWrittenId(attrs.id)) out.push(`locator(${quote(`#${attrs.id}`)})`);
  if (attrs.placeholder) out.push(`getByPlaceholder(${quote(attrs.placeholder)})`);
  return out;
}
