import type { Step, StepTarget } from '../domain/steps.js';
import { parseLocator } from '../browser/locators.js';

/** What the healer found at the proposed element. */
export interface ProposedElement {
  role: string;
  name?: string;
  /** Its visible text. */
  text: string;
}

// Assertions whose element is their expectation: a heal may re-find that element, never swap it for another.
const assertions = new Set<Step['action']>(['assert_visible', 'wait_for']);

/** The recorded intent: the step's target, or what its locator says (steps recorded before targets were kept). */
export function recordedIntent(step: Step): { role?: string; name?: string } {
  if (step.target) return step.target;
  try {
    const [first] = parseLocator(step.locator ?? '');
    const arg = first?.args[0];
    const options = first?.args[1];
    const name = typeof options === 'object' && options !== null && !(options instanceof RegExp) && typeof options.name === 'string' ? options.name : undefined;
    if (first?.method === 'getByRole' && typeof arg === 'string') return { role: arg, ...(name && { name }) };
    if (first?.method === 'getByText' && typeof arg === 'string') return { name: arg };
  } catch {
    // an unparsable locator carries no intent to check
  }
  return {};
}

const flat = (text: string) => text.replace(/\s+/g, ' ').trim();

/**
 * Why a proposed heal must be refused, or undefined when it may stand. The role must be the recorded one (a
 * button stays a button; a status line never becomes an alert), and for an assertion the recorded name or text
 * (its expectation) must be what the proposed element shows, unchanged.
 */
export function refuseHeal(step: Step, proposed: ProposedElement, justification: string): string | undefined {
  if (!justification.trim()) return 'the proposal gives no reason why it is the same element';
  const intent: StepTarget | { role?: string; name?: string } = recordedIntent(step);
  if (intent.role && proposed.role !== intent.role) {
    return `the proposed element is a ${proposed.role}${proposed.name ? ` "${proposed.name}"` : ''}, but the step was recorded on a ${intent.role}${intent.name ? ` "${intent.name}"` : ''}`;
  }
  if (assertions.has(step.action) && intent.name) {
    const expected = flat(intent.name);
    const shown = `${flat(proposed.name ?? '')} ${flat(proposed.text)}`;
    if (!shown.includes(expected)) return `an assertion's expectation cannot change: the proposed element does not show "${expected}"`;
  }
  return undefined;
}
