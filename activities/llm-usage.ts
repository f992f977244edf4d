import type { ActivityDeps } from './deps.js';
import type { UsageSubject } from '../src/domain/llm-usage.js';
import { forRole, metered, type Llm, type LlmRole } from '../src/llm/client.js';

const roleOf: Record<UsageSubject['purpose'], LlmRole> = {
  burn_in: 'agent',
  heal: 'heal',
  review: 'review',
  chat: 'chat',
};

/**
 * The LLM as one piece of work uses it: the model of its role, its calls counted for `subject` and refused once the
 * project's budget is spent.
 */
export function llmFor(deps: Pick<ActivityDeps, 'usage'>, llm: Llm, subject: UsageSubject): Llm {
  const forWork = forRole(llm, roleOf[subject.purpose]);
  return deps.usage ? metered(forWork, deps.usage.meterFor(subject)) : forWork;
}
