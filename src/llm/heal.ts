import type { Healer } from '../browser/replay.js';
import { locatorForRef } from '../browser/record.js';
import { observe } from '../browser/snapshot.js';
import { healTools } from './agent-tools.js';
import { callTool, type Llm } from './client.js';
import { healMessage, healSystemPrompt } from './prompts.js';

/** Self-healing: one LLM call picks the step's element from the current snapshot by the step's intent. */
export function createLlmHealer(llm: Llm, secrets: Record<string, string>, onCall?: () => void): Healer {
  return async (page, step, error) => {
    const obs = await observe(page, { redact: secrets });
    const call = await callTool(
      llm,
      [
        { role: 'system', content: healSystemPrompt },
        { role: 'user', content: healMessage(step, error.message, obs) },
      ],
      healTools,
    );
    onCall?.();
    if (call.name !== 'select_element' || typeof call.args.ref !== 'string') return undefined;
    try {
      return await locatorForRef(page, call.args.ref);
    } catch {
      return undefined;
    }
  };
}
