import type OpenAI from 'openai';
import type { Page } from 'playwright-core';
import { redact, type Observation } from '../browser/record/snapshot.js';
import type { RefAliases } from '../browser/record/snapshot-refs.js';
import { kindOfTool, refArgsOf } from '../browser/steps/index.js';
import { agentSystemPrompt, observationMessage, taskMessage, type AgentTask } from './prompts.js';
import { defaultPageTokens, observeWithin } from './page-view.js';
import { countTokens, fitsTokens } from './token-count.js';

// One burn-in step's prompt. The system prompt and the tools come first and do not change between steps, so
// providers cache them (issue 32: they are not counted against the page); the page gets a budget of its own
// (src/llm/page-view.ts, about 4,000 tokens) and compaction by landmarks (src/browser/record/snapshot.ts) fits it there,
// `main` before the sidebar. The history is bounded on its own: its oldest lines fold once it passes `historyTokens`.

/** The history's share of a step, past which its oldest lines fold into one. */
export const historyTokens = 600;

export interface StepPromptInput {
  page: Page;
  task: AgentTask;
  history: string[];
  remaining: number;
  secrets: Record<string, string>;
  /** The open tabs, when there are several (BrowserSession.tabs.describe()). */
  tabs: string;
  /** The agent's recent `find`s, oldest first, shown while they match. Answered in this prompt. */
  find?: string[];
  /** The `find` just asked, answered even when nothing matches. */
  findAsked?: string;
  /** The page's token budget (default `defaultPageTokens`). */
  pageTokens?: number;
}

export interface StepPrompt {
  messages: OpenAI.ChatCompletionMessageParam[];
  obs: Observation;
  refs?: RefAliases;
}

const userMessage = (task: AgentTask, obs: Observation, history: string[], remaining: number) =>
  `${taskMessage(task)}\n\n${observationMessage(obs, history, remaining)}`;

export async function stepPrompt(input: StepPromptInput): Promise<StepPrompt> {
  const { page, task, history, remaining, secrets } = input;
  const tabs = redact(input.tabs, secrets);
  const pageTokens = input.pageTokens ?? defaultPageTokens;
  // The open tabs' line is part of the page.
  const obs = await observeWithin({
    page,
    secrets,
    budget: () => pageTokens - (tabs ? countTokens(tabs) + 1 : 0),
    ...(input.find?.length && { find: input.find }),
    ...(input.findAsked !== undefined && { findAsked: input.findAsked }),
  });
  obs.snapshot = [tabs, obs.snapshot].filter(Boolean).join('\n');
  // A long burn-in's history would grow every step's uncached part: past its share, the oldest lines fold into one.
  const shown = foldHistory(history, (lines) => fitsTokens(lines.join('\n'), historyTokens));
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

/**
 * The tool call's arguments with the model's ref aliases mapped back to Playwright's refs: every argument the
 * kind marks as a ref (`elementRef`, src/browser/steps/kind.ts), one or an array (drag's `to`, a check's masks),
 * and nothing else (wait_for_email's `to` is an address).
 */
export function withRealRefs(
  tool: string,
  args: Record<string, unknown>,
  refs: RefAliases | undefined,
): Record<string, unknown> {
  const kind = kindOfTool(tool);
  if (!refs || !kind) return args;
  const real = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? refs.resolve(value) : value);
  const out = { ...args };
  for (const { key, many } of refArgsOf(kind)) {
    if (!(key in out)) continue;
    const value = out[key];
    out[key] = many && Array.isArray(value) ? value.map(real) : real(value);
  }
  return out;
}
