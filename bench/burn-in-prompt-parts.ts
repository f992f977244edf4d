// Where a burn-in prompt's tokens go: o200k_base tokens (src/llm/token-count.ts) of the system prompt, the tools as
// the model reads them, the task and history, the snapshot, and `find`'s answer, from the request as sent. And the
// scripted model's side of a measured burn-in: what it answered at each step.
import type OpenAI from 'openai';
import { countTokens, promptTokens, renderTools } from '../src/llm/token-count.js';
import { createRouter, type AgentMove } from '../test/support/agent-script.js';
import type { ChatRequest, ScriptedLlm } from '../test/support/scripted-llm.js';

/**
 * Queues one scripted answer per move of the burn-in of `goal`; the returned list fills with the tool each answer
 * called (`text` for a reply without one), in order, as the burn-in asks.
 */
export function scriptBurnIn(llm: ScriptedLlm, goal: string, moves: AgentMove[]): string[] {
  const router = createRouter();
  router.add(goal, moves);
  const answers: string[] = [];
  llm.enqueue(
    ...moves.map(() => (req: ChatRequest) => {
      const reply = router.reply(req);
      answers.push('toolCalls' in reply ? (reply.toolCalls[0]?.name ?? '?') : 'text');
      return reply;
    }),
  );
  return answers;
}

export interface PromptParts {
  total: number;
  system: number;
  tools: number;
  /** Task, history, budget and page line: everything of the user message before the snapshot. */
  task: number;
  snapshot: number;
  found: number;
}

const text = (m: OpenAI.ChatCompletionMessageParam | undefined): string =>
  typeof m?.content === 'string' ? m.content : '';

export function promptParts(
  messages: readonly OpenAI.ChatCompletionMessageParam[],
  tools: readonly OpenAI.ChatCompletionTool[],
): PromptParts {
  const user = text(messages.find((m) => m.role === 'user'));
  const at = user.indexOf('\nSnapshot:\n');
  const page = at >= 0 ? user.slice(at + '\nSnapshot:\n'.length) : '';
  const foundAt = page.search(/\n(Found "|Nothing on the page contains ")/);
  return {
    total: promptTokens(messages, tools).total,
    system: countTokens(text(messages.find((m) => m.role === 'system'))),
    tools: tools.length ? countTokens(renderTools(tools)) : 0,
    task: countTokens(at >= 0 ? user.slice(0, at) : user),
    snapshot: countTokens(foundAt >= 0 ? page.slice(0, foundAt) : page),
    found: foundAt >= 0 ? countTokens(page.slice(foundAt + 1)) : 0,
  };
}

export const partsHeader = ['o200k total', 'system', 'tools', 'task+history', 'snapshot', 'found'];
export const partsRow = (p: PromptParts): number[] => [p.total, p.system, p.tools, p.task, p.snapshot, p.found];
