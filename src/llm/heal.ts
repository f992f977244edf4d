import type OpenAI from 'openai';
import type { Healer } from '../browser/steps/index.js';
import { locatorForRef } from '../browser/record/record.js';
import { redact, type Observation } from '../browser/record/snapshot.js';
import { UnknownAliasError } from '../browser/record/snapshot-refs.js';
import type { Step } from '../domain/steps.js';
import { healTools } from './agent-tools.js';
import { callTool, type Llm } from './client.js';
import { whyRefuse } from './heal-rules.js';
import { defaultPageTokens, observeWithin } from './page-view.js';
import { healMessage, healSystemPrompt } from './prompts.js';

/**
 * Self-healing: one LLM call picks the step's element from the current snapshot by the step's recorded intent and
 * says why it is the same element; the code then checks the pick against the recording (heal-rules) and refuses
 * any that would change what the step means.
 */
export function createLlmHealer(
  llm: Llm,
  secretsNow: Record<string, string> | (() => Record<string, string>),
  onCall?: () => void,
): Healer {
  return async (page, step, error) => {
    // A function when the secrets change during the run (a TOTP code typed a step ago is on the page now).
    const secrets = typeof secretsNow === 'function' ? secretsNow() : secretsNow;
    // The page as the burn-in's steps see it: short refs, main content first, within the same page budget.
    const obs = await observeWithin({ page, secrets, budget: () => llm.pageTokens ?? defaultPageTokens });
    const call = await callTool(llm, healPrompt(step, error.message, obs), healTools);
    onCall?.();
    const reason = typeof call.args.reason === 'string' ? redact(call.args.reason, secrets) : '';
    if (call.name !== 'select_element' || typeof call.args.ref !== 'string') {
      return { refused: `the model found no element for it${reason ? ` (${reason})` : ''}` };
    }
    let ref: string;
    try {
      ref = obs.refs!.resolve(call.args.ref);
    } catch (err) {
      if (!(err instanceof UnknownAliasError)) throw err;
      return { refused: `the model named an element it was not shown (${call.args.ref})` };
    }
    const text = await page
      .locator(`aria-ref=${ref}`)
      .innerText({ timeout: 1_000 })
      .catch(() => '');
    let proposal;
    try {
      proposal = await locatorForRef(page, ref);
    } catch {
      return { refused: `the model named an element that is not on the page (${call.args.ref})` };
    }
    const target = proposal.target ?? { role: 'generic' };
    const refusal = whyRefuse(step, { role: target.role, name: target.name, text }, reason);
    if (refusal) {
      const refused = `refused the model's pick ${proposal.locator}: ${redact(refusal.reason, secrets)}`;
      // The step's own element under new text: offered to a person as the new expectation, never taken.
      return refusal.expectation
        ? { refused, candidate: { locator: proposal.locator, fallbacks: proposal.fallbacks, target } }
        : { refused };
    }
    return { locator: proposal.locator, fallbacks: proposal.fallbacks, reason };
  };
}

/** The heal's request: the system prompt, then the step, its error and the page. */
export function healPrompt(step: Step, error: string, obs: Observation): OpenAI.ChatCompletionMessageParam[] {
  return [
    { role: 'system', content: healSystemPrompt },
    { role: 'user', content: healMessage(step, error, obs) },
  ];
}
