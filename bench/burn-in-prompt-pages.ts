// Per page of the fixture apps (issue 32): a careful scripted model burns in a flow through the real agent loop
// (`runAgent`), acting only on refs its prompt shows and asking `find` when an element it needs is not shown
// (test/support/agent-script.ts `carefully`). What it costs: model calls per recorded step, and the prompt tokens
// the scripted server reported per recorded step, cached (OpenAI's automatic prefix caching, as the scripted server
// counts it) and uncached. Adding a page is one entry of `benchPages`.
import type { BrowserPool } from '../src/browser/context/pool.js';
import { RunValues } from '../src/domain/run-values.js';
import { runAgent } from '../src/llm/agent.js';
import type { Llm } from '../src/llm/client.js';
import type { AgentTask } from '../src/llm/prompts.js';
import { carefully, type AgentMove } from '../test/support/agent-script.js';
import {
  adminCreateExpected,
  adminCreateGoal,
  adminCreateMoves,
  adminSearchExpected,
  adminSearchGoal,
  adminSearchMoves,
} from '../test/support/admin-script.js';
import { largePageExpected, largePageGoal, largePageMoves } from '../test/support/large-page-script.js';
import { loginGoal, loginMoves } from '../test/support/shop-agent-script.js';
import type { ScriptedLlm } from '../test/support/scripted-llm.js';
import { fixed, shopConfigs, stepTimeoutMs } from './support.js';

export interface BenchPage {
  name: string;
  task: AgentTask;
  /** Where the burn-in's tab is when the agent starts (a path of the fixture apps). */
  start: string;
  moves: (base: string) => AgentMove[];
  configs?: Record<string, string>;
  secretNames?: string[];
}

const plain = (applicationName: string, goal: string, expectedResult: string): AgentTask => ({
  applicationName,
  goal,
  expectedResult,
  configNames: [],
});

export const benchPages: BenchPage[] = [
  {
    name: 'admin: create a group',
    task: plain('Admin', adminCreateGoal, adminCreateExpected),
    start: '/admin/auth/group/',
    moves: adminCreateMoves,
  },
  {
    name: 'admin: search',
    task: plain('Admin', adminSearchGoal, adminSearchExpected),
    start: '/admin/auth/group/',
    moves: adminSearchMoves,
  },
  {
    name: 'large page',
    task: plain('Catalogue', largePageGoal, largePageExpected),
    start: '/large/start',
    moves: (base) => largePageMoves(base),
  },
  {
    name: 'shop sign-in',
    task: {
      applicationName: 'Shop',
      goal: loginGoal,
      expectedResult: 'The cart link shows one item',
      configNames: Object.keys(shopConfigs),
    },
    start: '/shop/login',
    moves: () => loginMoves,
    configs: shopConfigs,
    secretNames: ['SHOP_PASSWORD'],
  },
];

export interface PageFigures {
  name: string;
  calls: number;
  steps: number;
  finds: number;
  /** Per call, as the server reported them. */
  prompt: number[];
  cached: number[];
  recorded: string[];
}

/** One careful burn-in of `page`; the scripted server's cache starts empty, as for a first burn-in. */
export async function burnInPage(
  llm: ScriptedLlm,
  client: Llm,
  pool: BrowserPool,
  base: string,
  page: BenchPage,
): Promise<PageFigures> {
  llm.reset();
  const model = carefully(page.moves(base));
  const next = (req: Parameters<AgentMove>[0]) => {
    const reply = model.next(req);
    if (!model.finished()) llm.enqueue(next);
    return reply;
  };
  llm.enqueue(next);
  const result = await pool.withContext({}, async ({ page: tab }) => {
    await tab.goto(base + page.start, { waitUntil: 'load' });
    const values = new RunValues({ configs: page.configs ?? {}, secretNames: page.secretNames ?? [] });
    return runAgent(tab, page.task, {
      llm: client,
      baseUrl: base + page.start,
      values,
      maxSteps: 30,
      timeoutMs: stepTimeoutMs,
    });
  });
  if (result.status !== 'COMPLETED')
    throw new Error(`${page.name}: the agent did not complete: ${result.failureReason}`);
  const usage = llm.usageSent;
  return {
    name: page.name,
    calls: result.llmCalls,
    steps: result.steps.length,
    // Calls that were neither a step nor `done`: the model's `find`s (its own, or the careful model's).
    finds: result.llmCalls - result.steps.length - 1,
    prompt: usage.map((u) => u.prompt_tokens),
    cached: usage.map((u) => u.prompt_tokens_details.cached_tokens),
    recorded: result.steps.map((s) => `${s.action} ${s.locator ?? s.value ?? ''}`),
  };
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

export const pagesHeader = [
  'page',
  'LLM calls',
  'steps',
  'finds',
  'calls/step',
  'prompt/step',
  'cached/step',
  'uncached/step',
  'max prompt/call',
];
export function pagesRow(f: PageFigures): (string | number)[] {
  const per = (n: number) => Math.round(n / f.steps);
  return [
    f.name,
    f.calls,
    f.steps,
    f.finds,
    fixed(f.calls / f.steps, 2),
    per(sum(f.prompt)),
    per(sum(f.cached)),
    per(sum(f.prompt) - sum(f.cached)),
    Math.max(...f.prompt),
  ];
}
