import type { Locator, Page } from 'playwright-core';
import type { Step, StepTarget } from '../../domain/steps.js';
import type { StepChange } from '../../domain/verdicts.js';
import { TargetChangedError } from './replay-failures.js';
import { quote } from '../../domain/locators.js';
import { resolveLocator } from '../locators.js';
import { framePrefix } from '../../domain/locator-frames.js';
import { isElement } from '../page-function.js';
import { ariaTarget } from '../record/record.js';
import {
  assertsElement,
  compareTarget,
  expectationOf,
  flat,
  recordedTarget,
  showsExpectation,
  type SeenElement,
} from '../../domain/target-check.js';

// The replay side of the target check: reads the element a step is about to use and applies the rules of
// src/domain/target-check.ts, whichever locator or heal found it.

export interface HealedStep {
  /** 0-based index into the steps; the messages say "step N" with N = index + 1. */
  index: number;
  from: string | undefined;
  to: string;
  /** A recorded fallback locator matched, or the LLM picked the element (and its pick was checked). */
  via: 'fallback' | 'llm';
  /** The healer's justification (llm only). */
  reason?: string;
}

/**
 * A step that failed because its element now shows something else (an assertion's text, a control's label): the
 * element as it is now, for a person to accept as the step's new expectation. Never applied by itself.
 */
export interface ExpectationProposal {
  index: number;
  from: string;
  to: string;
  locator: string;
  fallbacks: string[];
  target: StepTarget;
  /** In plain words, e.g. `the heading now reads "Website-Verwaltung"; accept to update this assertion`. */
  reason: string;
}

/** What one replay accumulates besides its steps. */
export interface Findings {
  healed: HealedStep[];
  changes: StepChange[];
  proposals: ExpectationProposal[];
}

/** An element that does not show the step's expectation: the failure, and the text it shows now as a proposal. */
export class Mismatch {
  constructor(
    readonly message: string,
    readonly proposal: ExpectationProposal | undefined,
  ) {}

  error(found: Findings, refusal?: string): TargetChangedError {
    if (this.proposal && !found.proposals.some((p) => p.index === this.proposal!.index))
      found.proposals.push(this.proposal);
    return new TargetChangedError(`${this.message}${refusal ? `; self-healing: ${refusal}` : ''}`, 'assertion');
  }
}

/** The element as the accessibility tree and the page show it now. */
async function seeElement(locator: Locator, withText: boolean): Promise<SeenElement> {
  const element = locator.first();
  // An action's element is compared by role and name only: its text costs another round trip, on every step.
  const [target, text] = await Promise.all([
    ariaTarget(element),
    withText ? element.innerText({ timeout: 1_000 }).catch(() => '') : '',
  ]);
  return seenAs(target, text);
}

/** What the check compares, from the element's role and name (its aria snapshot) and its text. */
export function seenAs(target: StepTarget | undefined, text: string): SeenElement {
  return { role: target?.role ?? 'generic', ...(target?.name && { name: target.name }), text };
}

/**
 * Compares the element a locator found with the recorded one. An assertion must show its recorded expectation
 * (waiting for it, since text arrives late); an action's element reports its changes (a lost name, another role).
 * When the locator found another element than the recorded one while the recorded one is on the page (swapped
 * neighbours, a test id moved), the step uses the recorded one and says so. Returns the element to act on.
 */
export async function verifyTarget(
  page: Page,
  step: Step,
  index: number,
  match: { locator: Locator; expression: string; seen?: SeenElement },
  waitMs: number,
  found: Findings,
): Promise<Locator | Mismatch> {
  const asserts = assertsElement(step);
  // An assert_text checks its text, and an action recorded without a target has nothing to be compared with.
  if (step.action === 'assert_text' || (!asserts && !step.target)) return match.locator;
  const deadline = Date.now() + Math.max(waitMs, 0);
  // An action's element settles fast; a short wait covers a label rendered after the control.
  const settleBy = Date.now() + Math.min(Math.max(waitMs, 0), 1_000);
  // The probe may have read the element while waiting for it (one round trip for both): its first read counts.
  let seen = match.seen ?? (await seeElement(match.locator, asserts));
  if (asserts) {
    while (!showsExpectation(step, seen) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      seen = await seeElement(match.locator, true);
    }
    if (showsExpectation(step, seen)) return match.locator;
    const recorded = await recordedElementElsewhere(page, step, match);
    if (recorded) return useRecorded(index, step, match, recorded, seen, found);
    const shown = flat(seen.name || seen.text);
    const message = `${match.expression} shows ${shown ? `"${shown.slice(0, 200)}"` : 'no text'}, not the expected "${expectationOf(step)}" (${step.description})`;
    // Only the same kind of element showing other text is a new expectation to offer; an emptied one is not.
    const sameKind = !recordedTarget(step)?.role || recordedTarget(step)?.role === seen.role;
    const target = {
      role: seen.role,
      ...(seen.name && { name: seen.name }),
      ...(seen.text && { text: flat(seen.text).slice(0, 300) }),
    };
    return new Mismatch(
      message,
      shown && sameKind ? proposalFor(index, step, { locator: match.expression, fallbacks: [], target }) : undefined,
    );
  }
  let changes = compareTarget(index, step, seen);
  while (changes.length > 0 && Date.now() < settleBy) {
    await new Promise((r) => setTimeout(r, 100));
    seen = await seeElement(match.locator, false);
    changes = compareTarget(index, step, seen);
  }
  if (changes.length === 0) return match.locator;
  const recorded = await recordedElementElsewhere(page, step, match);
  if (recorded) return useRecorded(index, step, match, recorded, seen, found);
  found.changes.push(...changes);
  return match.locator;
}

/** The element that has the recorded role and name (or text), when it is on the page once and is not `other`. */
async function recordedElementElsewhere(
  page: Page,
  step: Step,
  match: { locator: Locator; expression: string },
): Promise<{ locator: Locator; expression: string } | undefined> {
  const other = match.locator;
  const target = recordedTarget(step);
  const expected = target?.name || expectationOf(step);
  if (!expected) return undefined;
  // Looked for in the frame the step's element is in (the locator's frame chain), not on the top page.
  const expression =
    framePrefix(match.expression) +
    (target?.role && target.name && target.role !== 'generic' && target.role !== 'text'
      ? `getByRole(${quote(target.role)}, { name: ${quote(target.name)}, exact: true })`
      : `getByText(${quote(expected)}, { exact: true })`);
  const candidate = resolveLocator(page, expression);
  if ((await candidate.count().catch(() => 0)) !== 1) return undefined;
  const same = await other
    .first()
    .evaluate(isElement, await candidate.elementHandle({ timeout: 1_000 }))
    .catch(() => true);
  return same ? undefined : { locator: candidate, expression };
}

function useRecorded(
  index: number,
  step: Step,
  match: { expression: string },
  recorded: { locator: Locator; expression: string },
  seen: SeenElement,
  found: Findings,
): Locator {
  const target = recordedTarget(step);
  const now = seen.name || flat(seen.text).slice(0, 80) || seen.role;
  found.changes.push({
    stepIndex: index,
    field: 'name',
    from: target?.name ?? expectationOf(step) ?? null,
    to: now,
    severity: 'cosmetic',
    summary: `${match.expression} now finds "${now}"; the step used the recorded ${target?.role || 'element'} "${target?.name ?? expectationOf(step)}" instead`,
  });
  found.healed.push({ index, from: step.locator, to: recorded.expression, via: 'fallback' });
  return recorded.locator;
}

export function proposalFor(
  index: number,
  step: Step,
  candidate: { locator: string; fallbacks: string[]; target: StepTarget },
): ExpectationProposal {
  const from = expectationOf(step) ?? recordedTarget(step)?.name ?? '';
  const to = candidate.target.name || candidate.target.text || '';
  const what =
    candidate.target.role && candidate.target.role !== 'generic' ? `the ${candidate.target.role}` : 'the element';
  const verb = assertsElement(step) ? 'accept to update this assertion' : 'accept to update this step';
  return { index, from, to, ...candidate, reason: `${what} now reads "${to}"; ${verb}` };
}
