// How big the burn-in agent's prompts are and how many LLM calls a recorded step costs: the real agent loop
// (`runAgent`) on the fixture shop, with the scripted LLM playing the two scripts of the burn-in e2e test
// (sign in + add the mug; check out, starting signed in by replaying the first recording in the same page).
// Sizes come from the requests the scripted server received: characters of JSON(messages) + JSON(tools),
// tokens estimated as chars/4, which is what the scripted server reports as usage.
//
// Then the large page of the fixture apps (1,500 list items with buttons, a 300-row table, an iframe and a
// shadow-DOM widget, once at the top of the page and once at the bottom): the agent's first prompt there and where
// its tokens go, whether the iframe's and shadow root's refs survive compaction, and a scripted burn-in that buys
// the 1,200th item (collapsed out of the snapshot) through `find` (bench/burn-in-prompt-large.ts).
//
// Last, every combination of the optional tool groups (email, http) on the shop's four pages and the large page,
// with no history and after 25 steps, and the worst of them (bench/burn-in-prompt-groups.ts).
//
//   node --import tsx bench/burn-in-prompt.ts
import type { BrowserPool } from '../src/browser/context/pool.js';
import { replaySteps } from '../src/browser/replay/replay.js';
import { RunValues } from '../src/domain/run-values.js';
import type { Step } from '../src/domain/steps.js';
import { runAgent, type AgentResult } from '../src/llm/agent.js';
import type OpenAI from 'openai';
import { createLlm, type Llm } from '../src/llm/client.js';
import type { AgentTask } from '../src/llm/prompts.js';
import type { AgentMove } from '../test/support/agent-script.js';
import { checkoutGoal, checkoutMoves, loginGoal, loginMoves } from '../test/support/shop-agent-script.js';
import { type ChatRequest, type ScriptedLlm } from '../test/support/scripted-llm.js';
import { fixed, mean, shopConfigs, stepTimeoutMs, table, watchdog } from './support.js';
import { withLlmRig } from './rig.js';
import { burnInLargePage, measureLargePage, type LargePageFigures } from './burn-in-prompt-large.js';
import { partsHeader, partsRow, promptParts, scriptBurnIn, type PromptParts } from './burn-in-prompt-parts.js';
import { largePageSize } from '../test/support/fixtures/large-page.js';
import { groupCombinations, groupMatrix, worstOf } from './burn-in-prompt-groups.js';
import { defaultPageTokens } from '../src/llm/page-view.js';
import { benchPages, burnInPage, pagesHeader, pagesRow } from './burn-in-prompt-pages.js';

watchdog(300, 'bench/burn-in-prompt');

const task = (goal: string, expectedResult: string): AgentTask => ({
  applicationName: 'Shop',
  goal,
  expectedResult,
  configNames: Object.keys(shopConfigs),
});
const estimateTokens = (chars: number): number => Math.ceil(chars / 4);

interface RequestSize {
  script: string;
  answer: string;
  system: number;
  user: number;
  tools: number;
  total: number;
  tokens: number;
  /** o200k_base tokens of the prompt as the model reads it (src/llm/token-count.ts), by part. */
  parts: PromptParts;
}

/** The request as the scripted server sized it: JSON(messages) + JSON(tools), split by part. */
function sizeOf(script: string, answer: string, req: ChatRequest): RequestSize {
  const messages = JSON.stringify(req.messages).length;
  const tools = req.tools ? JSON.stringify(req.tools).length : 0;
  const system = req.messages.filter((m) => m.role === 'system').reduce((n, m) => n + JSON.stringify(m).length, 0);
  const parts = promptParts(
    req.messages as OpenAI.ChatCompletionMessageParam[],
    (req.tools ?? []) as OpenAI.ChatCompletionTool[],
  );
  return {
    script,
    answer,
    system,
    user: messages - system,
    tools,
    total: messages + tools,
    tokens: estimateTokens(messages + tools),
    parts,
  };
}

interface ScriptRun {
  name: string;
  result: AgentResult;
  sizes: RequestSize[];
}

async function runScript(
  llm: ScriptedLlm,
  client: Llm,
  pool: BrowserPool,
  shopUrl: string,
  name: string,
  goal: string,
  expected: string,
  moves: AgentMove[],
  before?: Step[],
): Promise<ScriptRun> {
  const answers = scriptBurnIn(llm, goal, moves);
  const first = llm.requests.length;
  const startUrl = `${shopUrl}/shop/login`;
  const result = await pool.withContext({}, async ({ page }) => {
    if (before) {
      // Start signed in: replay the first recording in this very page (sessionStorage included).
      const replayed = await replaySteps(page, before, {
        startUrl,
        baseUrl: startUrl,
        values: new RunValues({ configs: shopConfigs }),
        timeoutMs: stepTimeoutMs,
      });
      if (replayed.status !== 'PASSED') throw new Error(`replaying the sign-in failed: ${replayed.error}`);
    } else {
      await page.goto(startUrl, { waitUntil: 'domcontentloaded' });
    }
    return runAgent(page, task(goal, expected), {
      llm: client,
      baseUrl: startUrl,
      values: new RunValues({ configs: shopConfigs, secretNames: ['SHOP_PASSWORD'] }),
      maxSteps: 30,
      timeoutMs: stepTimeoutMs,
    });
  });
  if (result.status !== 'COMPLETED') throw new Error(`${name}: the agent did not complete: ${result.failureReason}`);
  const sizes = llm.requests.slice(first).map((req, i) => sizeOf(name, answers[i] ?? '?', req));
  // Our sizing is the server's own: the usage the agent got back must agree.
  const reported = result.promptTokens.join(',');
  if (reported !== sizes.map((s) => s.tokens).join(','))
    throw new Error(`${name}: sizes disagree with the reported usage ${reported}`);
  return { name, result, sizes };
}

function summaryRow(label: string, all: PromptParts[], answers: string[], steps: number): (string | number)[] {
  const tokens = all.map((p) => p.total);
  const toolsShare = all.reduce((n, p) => n + p.tools, 0) / all.reduce((n, p) => n + p.total, 0);
  return [
    label,
    all.length,
    steps,
    fixed(all.length / steps, 2),
    fixed(answers.filter((a) => a !== 'done').length / steps, 2),
    Math.round(mean(tokens)),
    Math.max(...tokens),
    `${fixed(toolsShare * 100)}%`,
  ];
}

await withLlmRig(async ({ fixture, llm, pool }) => {
  const client = createLlm(
    { apiKey: llm.apiKey, baseURL: llm.baseURL, model: 'scripted-model' },
    { maxRetries: 0, timeoutMs: 30_000 },
  )!;

  const login = await runScript(
    llm,
    client,
    pool,
    fixture.url,
    'login+mug',
    loginGoal,
    'The cart link shows one item',
    loginMoves,
  );
  const checkout = await runScript(
    llm,
    client,
    pool,
    fixture.url,
    'checkout',
    checkoutGoal,
    'The order is confirmed',
    checkoutMoves,
    login.result.steps,
  );
  const runs = [login, checkout];
  const all = runs.flatMap((r) => r.sizes);

  process.stdout.write(
    'Fixture shop: burn-in prompts per LLM request (chars of the request JSON and chars/4, the usage the scripted server reports; o200k_base tokens of the prompt as the model reads it, by part)\n\n',
  );
  process.stdout.write(
    table(
      ['script', '#', 'answer', 'total chars', 'chars/4', ...partsHeader],
      all.map((s, i) => [
        s.script,
        i + 1 - (s.script === 'checkout' ? login.sizes.length : 0),
        s.answer,
        s.total,
        s.tokens,
        ...partsRow(s.parts),
      ]),
    ),
  );

  const served = fixture.url;
  const figures: LargePageFigures[] = [];
  for (const path of ['/large/top', '/large/bottom'] as const) {
    for (const navigated of [false, true]) figures.push(await measureLargePage(pool, served, path, navigated));
  }
  figures.push(await measureLargePage(pool, served, '/large/bottom', true, 25));
  const large = await burnInLargePage(llm, client, pool, served);

  const summaryHeader = [
    'script',
    'LLM calls',
    'steps',
    'calls/step',
    'excl. done',
    'avg o200k tokens',
    'max o200k tokens',
    'tools share',
  ];
  const largeSteps = large.steps.length;
  process.stdout.write(
    `\nLarge page (${largePageSize.listItems} list items with buttons, a ${largePageSize.tableRows}-row table, an iframe and a shadow-DOM widget): the burn-in that buys item 1200 through find\n\n`,
  );
  process.stdout.write(
    table(
      ['#', 'answer', ...partsHeader],
      large.parts.map((p, i) => [i + 1, large.answers[i] ?? '?', ...partsRow(p)]),
    ),
  );
  process.stdout.write(`recorded: ${large.steps.join(' | ')}\n`);

  process.stdout.write(`\nLarge page, the agent's first prompt there (stepPrompt, as the agent builds it)\n\n`);
  process.stdout.write(
    table(
      ['layout', 'raw chars', 'raw lines', 'compact chars', 'lines', 'omitted', ...partsHeader, 'prompt ms'],
      figures.map((f) => [
        f.layout,
        f.rawChars,
        f.rawLines,
        f.compactChars,
        f.compactLines,
        f.omitted,
        ...partsRow(f.parts),
        fixed(f.promptMs, 0),
      ]),
    ),
  );
  process.stdout.write('\n');
  const yes = (b: boolean) => (b ? 'yes' : 'NO');
  process.stdout.write(
    table(
      ['layout', 'iframe ref (raw)', 'iframe ref (compact)', 'shadow ref (raw)', 'shadow ref (compact)'],
      figures.map((f) => [f.layout, yes(f.iframe[0]), yes(f.iframe[1]), yes(f.shadow[0]), yes(f.shadow[1])]),
    ),
  );

  process.stdout.write('\n');
  const shopSteps = runs.reduce((n, r) => n + r.result.steps.length, 0);
  process.stdout.write(
    table(summaryHeader, [
      ...runs.map((r) =>
        summaryRow(
          r.name,
          r.sizes.map((s) => s.parts),
          r.sizes.map((s) => s.answer),
          r.result.steps.length,
        ),
      ),
      summaryRow(
        'shop (all)',
        all.map((s) => s.parts),
        all.map((s) => s.answer),
        shopSteps,
      ),
      summaryRow('large page', large.parts, large.answers, largeSteps),
    ]),
  );
  const matrix = await groupMatrix(pool, served);
  process.stdout.write(
    '\nEvery combination of tool groups (o200k tokens of the prompt as the agent builds it; the worst page of each, no history and 25 steps done)\n\n',
  );
  process.stdout.write(
    table(
      ['tools', 'history', 'worst page', ...partsHeader, 'least of a page shown', 'large page widgets shown'],
      groupCombinations.flatMap((groups) =>
        [0, 25].map((history) => {
          const rows = matrix.filter((r) => r.groups === (groups.join('+') || 'none') && r.history === history);
          const worst = worstOf(rows);
          const widgets = rows.filter((r) => r.widgets !== undefined);
          // How much of each page's snapshot is left, against the same page with no groups and no history.
          const shown = (r: (typeof rows)[number]) =>
            r.parts.snapshot /
            matrix.find((m) => m.page === r.page && m.groups === 'none' && m.history === 0)!.parts.snapshot;
          const least = rows.reduce((x, y) => (shown(y) < shown(x) ? y : x));
          return [
            worst.groups,
            history,
            worst.page,
            ...partsRow(worst.parts),
            `${fixed(shown(least) * 100)}% (${least.page})`,
            `${widgets.filter((r) => r.widgets).length}/${widgets.length}`,
          ];
        }),
      ),
    ),
  );
  const worst = worstOf(matrix);
  process.stdout.write(
    `worst combination: tools ${worst.groups} on ${worst.page}, ${worst.history} steps done: ${worst.parts.total} tokens, the page ${worst.parts.snapshot}\n`,
  );
  // Issue 32: the page has its own budget; the system prompt and tools are the cached prefix, not counted against it.
  const pageMax = Math.max(
    ...all.map((s) => s.parts.snapshot + s.parts.found),
    ...large.parts.map((p) => p.snapshot + p.found),
    ...figures.map((f) => f.parts.snapshot),
    ...matrix.map((r) => r.parts.snapshot),
  );
  const refsKept = figures.every((f) => f.iframe[1] && f.shadow[1]);
  process.stdout.write(
    `\ngoal: the page within ${defaultPageTokens} tokens (o200k), whatever the tools: max ${pageMax} (${pageMax <= defaultPageTokens ? 'met' : 'NOT met'}); iframe and shadow refs kept: ${refsKept ? 'yes' : 'NO'}\n`,
  );

  // Last: each page's burn-in resets the scripted server (its cache starts empty, as a first burn-in's would).
  const pages = [];
  for (const entry of benchPages) pages.push(await burnInPage(llm, client, pool, served, entry));
  process.stdout.write(
    "\nPer page: a careful scripted model (acts only on refs it is shown, asks find for the rest), prompt tokens as the scripted server reports them (chars/4, cached by OpenAI's prefix rule)\n\n",
  );
  process.stdout.write(table(pagesHeader, pages.map(pagesRow)));
  for (const p of pages)
    process.stdout.write(`${p.name}: prompt per call ${p.prompt.join(', ')}; cached ${p.cached.join(', ')}\n`);
});
process.exit(0);
