import type { Step } from '../domain/steps.js';
import { assertsElement, expectationOf, recordedTarget, showsExpectation } from '../domain/target-check.js';

/** What the healer found at the proposed element. */
export interface ProposedElement {
  role: string;
  name?: string;
  /** Its visible text. */
  text: string;
}

/** The recorded intent: the step's target, or what its locator says (steps recorded before targets were kept). */
export function recordedIntent(step: Step): { role?: string; name?: string } {
  const target = recordedTarget(step);
  if (!target) return {};
  return { ...(target.role && { role: target.role }), ...(target.name && { name: target.name }) };
}

/** Why a heal is refused: `expectation` when the element is the step's (same role) but shows other text. */
export interface HealRefusalReason {
  reason: string;
  expectation?: boolean;
}

/**
 * Why a proposed heal must be refused, or undefined when it may stand. The role must be the recorded one (a
 * button stays a button; a status line never becomes an alert), and for an assertion the recorded expectation (its
 * name, the text its locator names, or its recorded text when it has no name) must be what the element shows.
 */
export function refuseHeal(step: Step, proposed: ProposedElement, justification: string): string | undefined {
  return whyRefuse(step, proposed, justification)?.reason;
}

export function whyRefuse(step: Step, proposed: ProposedElement, justification: string): HealRefusalReason | undefined {
  if (!justification.trim()) return { reason: 'the proposal gives no reason why it is the same element' };
  const intent = recordedIntent(step);
  if (intent.role && proposed.role !== intent.role) {
    return {
      reason: `the proposed element is a ${proposed.role}${proposed.name ? ` "${proposed.name}"` : ''}, but the step was recorded on a ${intent.role}${intent.name ? ` "${intent.name}"` : ''}`,
    };
  }
  if (assertsElement(step) && !showsExpectation(step, proposed)) {
    return {
      reason: `an assertion's expectation cannot change: the proposed element does not show "${expectationOf(step)}"`,
      expectation: true,
    };
  }
  return undefined;
}
