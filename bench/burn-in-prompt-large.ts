// The large page of the burn-in prompt bench (test/support/fixtures/large-page.ts): what the agent's first prompt
// there costs and where its tokens go, whether the iframe's and shadow root's refs survive compaction, and a
// scripted burn-in that reaches the 1,200th item (collapsed out of the snapshot) through `find`.
import type OpenAI from 'openai';
import type { BrowserPool } from '../src/browser/context/pool.js';
import { RunValues } from '../src/domain/run-values.js';
import { runAgent } from '../src/llm/agent.js';
import { stepPrompt } from '../src/llm/agent-prompt.js';
import { agentToolsWith, toolGroupsFor } from '../src/llm/agent-tools.js';
import type { Llm } from '../src/llm/client.js';
import type { AgentTask } from '../src/llm/prompts.js';
import { largePageExpected, largePageGoal, largePageMoves } from '../test/support/large-page-script.js';
import type { ScriptedLlm } from '../test/support/scripted-llm.js';
import { promptParts, scriptBurnIn, type PromptParts } from './burn-in-prompt-parts.js';
import { stepTimeoutMs } from './support.js';

const task: AgentTask = {
  applicationName: 'Catalogue',
  goal: largePageGoal,
  expectedResult: largePageExpected,
  configNames: [],
};

/** Whether the line naming `name` carries a ref in `snapshot`. */
const hasRef = (snapshot: string, name: string): boolean =>
  snapshot.split('\n').some((l) => l.includes(name) && /\[ref=/.test(l));

export interface LargePageFigures {
  layout: string;
  rawChars: number;
  rawLines: number;
  compactChars: number;
  compactLines: number;
  omitted: number;
  parts: PromptParts;
  promptMs: number;
  iframe: [boolean, boolean];
  shadow: [boolean, boolean];
}

/**
 * The first prompt the agent sends on the page, built by the agent's own code (`stepPrompt`). `navigated`: the page
 * is reached from another page of the tab, as the agent usually reaches it (Playwright's refs then carry a prefix).
 */
export async function measureLargePage(
  pool: BrowserPool,
  base: string,
  path: '/large/top' | '/large/bottom',
  navigated: boolean,
  pastSteps = 0,
): Promise<LargePageFigures> {
  const layout = `${path === '/large/top' ? 'widgets at the top' : 'widgets at the bottom'}, ${navigated ? 'after a navigation' : 'first page'}${pastSteps ? `, ${pastSteps} steps done` : ''}`;
  // A long burn-in's history, as the agent writes it: its oldest lines fold before the page shrinks.
  const history = Array.from(
    { length: pastSteps },
    (_, i) => `${i + 1}. click getByRole('button', { name: 'Edit order ${10_000 + i}' }) ✓`,
  );
  return pool.withContext({}, async ({ page }) => {
    if (navigated) await page.goto(`${base}/large/start`, { waitUntil: 'load' });
    await page.goto(base + path, { waitUntil: 'load' });
    await page.frameLocator('iframe').getByRole('button', { name: 'Pay inside iframe' }).waitFor();
    await page.getByRole('button', { name: 'Apply shadow coupon' }).waitFor();
    const raw = await page.ariaSnapshot({ mode: 'ai' });
    const tools = agentToolsWith(toolGroupsFor(`${task.goal}\n${task.expectedResult}`));
    const started = performance.now();
    const { messages, obs } = await stepPrompt({
      page,
      task,
      history,
      remaining: 30 - pastSteps,
      secrets: {},
      tabs: '',
    });
    const promptMs = performance.now() - started;
    return {
      layout,
      rawChars: raw.length,
      rawLines: raw.split('\n').length,
      compactChars: obs.snapshot.length,
      compactLines: obs.snapshot.split('\n').length,
      omitted: obs.omittedLines,
      parts: promptParts(messages, tools),
      promptMs,
      iframe: [hasRef(raw, 'Pay inside iframe'), hasRef(obs.snapshot, 'Pay inside iframe')],
      shadow: [hasRef(raw, 'Apply shadow coupon'), hasRef(obs.snapshot, 'Apply shadow coupon')],
    };
  });
}

export interface LargeBurnIn {
  answers: string[];
  parts: PromptParts[];
  steps: string[];
}

/** The scripted burn-in: navigate, find item 1200, click it, assert the status; every request's prompt in parts. */
export async function burnInLargePage(
  llm: ScriptedLlm,
  client: Llm,
  pool: BrowserPool,
  base: string,
): Promise<LargeBurnIn> {
  const answers = scriptBurnIn(llm, largePageGoal, largePageMoves(base));
  const first = llm.requests.length;
  const result = await pool.withContext({}, async ({ page }) => {
    await page.goto(`${base}/large/start`, { waitUntil: 'load' });
    return runAgent(page, task, {
      llm: client,
      baseUrl: `${base}/large/start`,
      values: new RunValues({ configs: {} }),
      maxSteps: 10,
      timeoutMs: stepTimeoutMs,
    });
  });
  if (result.status !== 'COMPLETED') throw new Error(`large page: the agent did not complete: ${result.failureReason}`);
  const parts = llm.requests
    .slice(first)
    .map((req) =>
      promptParts(
        req.messages as OpenAI.ChatCompletionMessageParam[],
        (req.tools ?? []) as OpenAI.ChatCompletionTool[],
      ),
    );
  return { answers, parts, steps: result.steps.map((s) => `${s.action} ${s.locator ?? s.value ?? ''}`) };
}
