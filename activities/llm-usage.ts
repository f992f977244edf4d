import type { ActivityDeps } from './deps.js';
import type { UsageSubject } from '../src/domain/llm-usage.js';
import { metered, type Llm } from '../src/llm/client.js';

/** The LLM as one piece of work uses it: its calls counted for `subject` and refused once the project's budget is spent. */
export function llmFor(deps: Pick<ActivityDeps, 'usage'>, llm: Llm, subject: UsageSubject): Llm {
  return deps.usage ? metered(llm, deps.usage.meterFor(subject)) : llm;
}
