import type OpenAI from 'openai';
import type { Page } from 'playwright-core';
import { redact, type Observation } from '../browser/snapshot.js';
import type { RefAliases } from '../browser/snapshot-refs.js';
import { agentSystemPrompt, observationMessage, taskMessage, type AgentTask } from './prompts.js';
import { observeWithin, stepTokenBudget } from './page-view.js';
import { countTokens, promptTokens } from './token-count.js';

// One burn-in step's prompt within a token budget (issue 25: ≤ 1.5k prompt tokens a step, tools included). The
// system prompt and the tools come first and do not change between steps, so providers cache them; the snapshot
// gets what the rest of the prompt leaves (src/llm/page-view.ts), and compaction (src/browser/snapshot.ts) fits it
// there. The more tools a goal is offered (the email and HTTP groups), the less the page gets: the page keeps up to
// `minSnapshotTokens` only as far as folding the history makes room for it, so every step stays within the budget.

export { stepTokenBudget };
/** However long the history grows, the page keeps up to this much of the prompt (the history folds for it). */
const minSnapshotTokens = 400;
/** The page's least share when the tools and task leave less than that: its main controls still show. */
const leastSnapshotTokens = 150;
/** Texts counted apart may tokenize a little differently once joined. */
const joinSlack = 4;

export interface StepPromptInput {
  page: Page;
  task: AgentTask;
  history: string[];
  remaining: number;
  tools: OpenAI.ChatCompletionTool[];
  secrets: Record<string, string>;
  /** The open tabs, when there are several (BrowserSession.tabs.describe()). */
  tabs: string;
  /** The text of the agent's last `find`, answered in this prompt. */
  find?: string;
}

export interface StepPrompt {
  messages: OpenAI.ChatCompletionMessageParam[];
  obs: Observation;
  refs?: RefAliases;
}

const userMessage = (task: AgentTask, obs: Observation, history: string[], remaining: number) => `${taskMessage(task)}\n\n${observationMessage(obs, history, remaining)}`;

export async function stepPrompt(input: StepPromptInput): Promise<StepPrompt> {
  const { page, task, history, remaining, tools, secrets } = input;
  const tabs = redact(input.tabs, secrets);
  const fixedWith = (lines: string[], empty: Observation) =>
    promptTokens([{ role: 'system', content: agentSystemPrompt }, { role: 'user', content: userMessage(task, { ...empty, snapshot: tabs }, lines, remaining) }], tools).total;
  // The history at its most folded: what the page can have at the least, whatever the tools offered.
  const mostFolded = foldHistory(history, () => false);
  const snapshotBudget = (empty: Observation) => {
    const beside = stepTokenBudget - fixedWith(history, empty);
    if (beside >= minSnapshotTokens) return beside;
    return Math.max(leastSnapshotTokens, Math.min(minSnapshotTokens, stepTokenBudget - fixedWith(mostFolded, empty)));
  };
  const obs = await observeWithin({ page, secrets, budget: snapshotBudget, ...(input.find !== undefined && { find: input.find }) });
  obs.snapshot = [tabs, obs.snapshot].filter(Boolean).join('\n');
  // A long burn-in's history would crowd the page out: when the page does not fit beside it, the history's oldest
  // lines fold into one.
  const pageTokens = countTokens(obs.snapshot) + (obs.found ? countTokens(obs.found) : 0);
  const shown = foldHistory(history, (lines) => fixedWith(lines, { ...obs, snapshot: '' }) + pageTokens <= stepTokenBudget - joinSlack);
  return {
    messages: [
      { role: 'system', content: agentSystemPrompt },
      { role: 'user', content: userMessage(task, obs, shown, remaining) },
    ],
    obs,
    refs: obs.refs,
  };
}

const keptHistory = 5;

/**
 * The history as shown: whole while it `fits`, else its oldest lines folded into one that counts them by action
 * ("1–12. earlier: fill ×4, click ×7, find ×1"), the last few always whole, since they say what just happened.
 */
export function foldHistory(history: string[], fits: (lines: string[]) => boolean): string[] {
  if (fits(history)) return history;
  let folded = history;
  for (let n = 2; n <= history.length - keptHistory; n++) {
    const counts = new Map<string, number>();
    for (const line of history.slice(0, n)) {
      const action = /^\d+\. (\w+)/.exec(line)?.[1] ?? 'other';
      counts.set(action, (counts.get(action) ?? 0) + 1);
    }
    const summary = `1–${n}. earlier: ${[...counts].map(([action, count]) => `${action} ×${count}`).join(', ')}`;
    folded = [summary, ...history.slice(n)];
    if (fits(folded)) break;
  }
  return folded;
}

// Argument names that hold refs, by tool: `ref` everywhere, `to` only for drag (wait_for_email's `to` is an address).
const refKeys = (tool: string): string[] => (tool === 'drag' ? ['ref', 'to'] : ['ref']);

/** The tool call's arguments with the model's ref aliases mapped back to Playwright's refs. */
export function withRealRefs(tool: string, args: Record<string, unknown>, refs: RefAliases | undefined): Record<string, unknown> {
  if (!refs) return args;
  const out = { ...args };
  for (const key of refKeys(tool)) {
    const value = out[key];
    if (typeof value === 'string' && value.trim() !== '') out[key] = refs.resolve(value);
  }
  return out;
}
