import { joinedText, kindOf, textHas, toTree, type SnapshotNode } from '../../src/browser/record/snapshot-tree.js';
import type { ChatRequest, ScriptedReply } from './scripted-llm.js';

// Helpers for writing the scripted LLM's side of an agent conversation: read the snapshot the agent sent,
// pick refs by role and name, answer with one tool call.

export function lastPrompt(req: ChatRequest): string {
  const last = req.messages.at(-1);
  return typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
}

/** A ref the scripted agent looked for is not in the prompt: what a careful model would `find`, or assert as text. */
export class MissingRefError extends Error {
  constructor(
    message: string,
    readonly findText: string,
    readonly assertText?: string,
  ) {
    super(message);
  }
}

/** The ref of the first snapshot line matching `pattern` (e.g. `button "Sign in"`). */
export function refOf(req: ChatRequest, pattern: string | RegExp): string {
  const line = lastPrompt(req)
    .split('\n')
    .find((l) => (typeof pattern === 'string' ? l.includes(pattern) : pattern.test(l)) && /\[ref=/.test(l));
  const ref = line && /\[ref=([^\]]+)\]/.exec(line)?.[1];
  const name =
    typeof pattern === 'string'
      ? (/"([^"]+)"/.exec(pattern)?.[1] ?? pattern)
      : pattern.source.replace(/[\\^$.*+?()[\]{}|]/g, ' ').trim();
  if (!ref)
    throw new MissingRefError(`scripted agent: no ${String(pattern)} in the snapshot:\n${lastPrompt(req)}`, name);
  return ref;
}

/**
 * The ref of the first element of `role` in the prompt whose whole text (its name and its children's text, as a
 * person reads it: `The group “QA Team” was added successfully.` across a link) contains `text`.
 */
export function refOfElement(req: ChatRequest, role: string, text: string): string {
  const found: SnapshotNode[] = [];
  const visit = (nodes: SnapshotNode[]) => {
    for (const node of nodes) {
      if (kindOf(node.line) === role && /\[ref=/.test(node.line) && textHas(joinedText(node), text)) found.push(node);
      visit(node.children);
    }
  };
  visit(toTree(lastPrompt(req).split('\n')));
  const ref = found[0] && /\[ref=([^\]]+)\]/.exec(found[0].line)?.[1];
  if (!ref)
    throw new MissingRefError(
      `scripted agent: no ${role} with "${text}" in the snapshot:\n${lastPrompt(req)}`,
      text,
      text,
    );
  return ref;
}

export const tool = (name: string, args: Record<string, unknown>): ScriptedReply => ({
  toolCalls: [{ name, arguments: args }],
});

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

/**
 * A careful model, for the benchmark: it acts only on refs it sees. When its move's element is not in the prompt it
 * asks `find` for it once; when even the answer has no such element, it asserts the text instead (an assertion's
 * only fallback) or gives up. `next` answers one request; `finished` once the last move (done) was answered.
 */
export function carefully(moves: AgentMove[]): { next: AgentMove; finished: () => boolean; finds: () => number } {
  let i = 0;
  let found = false;
  let finds = 0;
  return {
    finished: () => i >= moves.length,
    finds: () => finds,
    next(req) {
      try {
        const reply = moves[i]!(req);
        i++;
        found = false;
        return reply;
      } catch (err) {
        if (!(err instanceof MissingRefError)) throw err;
        if (!found) {
          found = true;
          finds++;
          return tool('find', { text: err.findText });
        }
        if (err.assertText === undefined) throw err;
        i++;
        found = false;
        return tool('assert_text', { text: err.assertText, description: `The page says ${err.assertText}` });
      }
    },
  };
}
