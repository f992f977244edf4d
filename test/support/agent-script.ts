import type { ChatRequest, ScriptedReply } from './scripted-llm.js';

// Helpers for writing the scripted LLM's side of an agent conversation: read the snapshot the agent sent,
// pick refs by role and name, answer with one tool call.

export function lastPrompt(req: ChatRequest): string {
  const last = req.messages.at(-1);
  return typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
}

/** The ref of the first snapshot line matching `pattern` (e.g. `button "Sign in"`). */
export function refOf(req: ChatRequest, pattern: string | RegExp): string {
  const line = lastPrompt(req)
    .split('\n')
    .find((l) => (typeof pattern === 'string' ? l.includes(pattern) : pattern.test(l)) && /\[ref=/.test(l));
  const ref = line && /\[ref=([^\]]+)\]/.exec(line)?.[1];
  if (!ref) throw new Error(`scripted agent: no ${String(pattern)} in the snapshot:\n${lastPrompt(req)}`);
  return ref;
}

export const tool = (name: string, args: Record<string, unknown>): ScriptedReply => ({ toolCalls: [{ name, arguments: args }] });

export type AgentMove = (req: ChatRequest) => ScriptedReply;

/** Routes each agent request to the script of the test case whose goal it carries, and logs the order. */
export function createRouter() {
  const scripts = new Map<string, AgentMove[]>();
  const order: string[] = [];
  return {
    order,
    add(goal: string, moves: AgentMove[]) {
      scripts.set(goal, [...moves]);
    },
    reply(req: ChatRequest): ScriptedReply {
      const goal = /^Goal: (.*)$/m.exec(lastPrompt(req))?.[1];
      if (!goal) throw new Error(`scripted agent: not an agent request:\n${lastPrompt(req)}`);
      order.push(goal);
      const move = scripts.get(goal)?.shift();
      if (!move) throw new Error(`scripted agent: no move left for goal "${goal}"`);
      return move(req);
    },
  };
}
