// How big the burn-in agent's prompts are and how many LLM calls a recorded step costs: the real agent loop
// (`runAgent`) on the fixture shop, with the scripted LLM playing the two scripts of the burn-in e2e test
// (sign in + add the mug; check out, starting signed in by replaying the first recording in the same page).
// Sizes come from the requests the scripted server received: characters of JSON(messages) + JSON(tools),
// tokens estimated as chars/4, which is what the scripted server reports as usage.
//
// Then a large page served by this script (1,500 list items with buttons, a 300-row table, an iframe and a
// shadow-DOM widget, once at the top of the page and once at the bottom): the raw aria snapshot against what
// `observe` hands the model, and whether the iframe's and shadow root's refs survive compaction.
//
//   node --import tsx bench/burn-in-prompt.ts
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserPool } from '../src/browser/pool.js';
import { replaySteps } from '../src/browser/replay.js';
import { RunValues } from '../src/browser/values.js';
import { observe } from '../src/browser/snapshot.js';
import type { Step } from '../src/domain/steps.js';
import { runAgent, type AgentResult } from '../src/llm/agent.js';
import { agentToolsWith, toolGroupsFor } from '../src/llm/agent-tools.js';
import type OpenAI from 'openai';
import { createLlm, type Llm } from '../src/llm/client.js';
import { promptTokens } from '../src/llm/token-count.js';
import { agentSystemPrompt, observationMessage, taskMessage, type AgentTask } from '../src/llm/prompts.js';
import { createRouter, type AgentMove } from '../test/support/agent-script.js';
import { checkoutGoal, checkoutMoves, loginGoal, loginMoves } from '../test/support/shop-agent-script.js';
import { startFixtureApps, type FixtureApps } from '../test/support/fixture-apps.js';
import { startScriptedLlm, type ChatRequest, type ScriptedLlm } from '../test/support/scripted-llm.js';
import { createBenchPool, fixed, mean, shopConfigs, stepTimeoutMs, table, watchdog } from './support.js';

watchdog(180, 'bench/burn-in-prompt');

const task = (goal: string, expectedResult: string): AgentTask => ({ applicationName: 'Shop', goal, expectedResult, configNames: Object.keys(shopConfigs) });
const estimateTokens = (chars: number): number => Math.ceil(chars / 4);

interface RequestSize {
  script: string;
  answer: string;
  system: number;
  user: number;
  tools: number;
  total: number;
  tokens: number;
  /** o200k_base tokens of the prompt as the model reads it (src/llm/token-count.ts): all, and the tools' part. */
  o200k: number;
  o200kTools: number;
}

/** The request as the scripted server sized it: JSON(messages) + JSON(tools), split by part. */
function sizeOf(script: string, answer: string, req: ChatRequest): RequestSize {
  const messages = JSON.stringify(req.messages).length;
  const tools = req.tools ? JSON.stringify(req.tools).length : 0;
  const system = req.messages.filter((m) => m.role === 'system').reduce((n, m) => n + JSON.stringify(m).length, 0);
  const counted = promptTokens(req.messages as OpenAI.ChatCompletionMessageParam[], (req.tools ?? []) as OpenAI.ChatCompletionTool[]);
  return { script, answer, system, user: messages - system, tools, total: messages + tools, tokens: estimateTokens(messages + tools), o200k: counted.total, o200kTools: counted.tools };
}

interface ScriptRun {
  name: string;
  result: AgentResult;
  sizes: RequestSize[];
}

async function runScript(llm: ScriptedLlm, client: Llm, pool: BrowserPool, shopUrl: string, name: string, goal: string, expected: string, moves: AgentMove[], before?: Step[]): Promise<ScriptRun> {
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
  const first = llm.requests.length;
  const startUrl = `${shopUrl}/shop/login`;
  const result = await pool.withContext({}, async ({ page }) => {
    if (before) {
      // Start signed in: replay the first recording in this very page (sessionStorage included).
      const replayed = await replaySteps(page, before, { startUrl, baseUrl: startUrl, values: new RunValues({ configs: shopConfigs }), timeoutMs: stepTimeoutMs });
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
  if (reported !== sizes.map((s) => s.tokens).join(',')) throw new Error(`${name}: sizes disagree with the reported usage ${reported}`);
  return { name, result, sizes };
}

function summaryRow(label: string, sizes: RequestSize[], steps: number): (string | number)[] {
  const tokens = sizes.map((s) => s.o200k);
  const toolsShare = sizes.reduce((n, s) => n + s.o200kTools, 0) / sizes.reduce((n, s) => n + s.o200k, 0);
  return [
    label,
    sizes.length,
    steps,
    fixed(sizes.length / steps, 2),
    fixed(sizes.filter((s) => s.answer !== 'done').length / steps, 2),
    Math.round(mean(tokens)),
    Math.max(...tokens),
    `${fixed(toolsShare * 100)}%`,
  ];
}

// ---- the large page

const listItems = 1_500;
const tableRows = 300;

function largePage(widgetsFirst: boolean): string {
  const list = `<h2>Catalogue</h2><ul aria-label="Catalogue">${Array.from(
    { length: listItems },
    (_, i) => `<li>Item ${i + 1}, a product with a short description <button type="button">Buy item ${i + 1}</button></li>`,
  ).join('')}</ul>`;
  const rows = Array.from(
    { length: tableRows },
    (_, i) => `<tr><td>Order ${10_000 + i}</td><td>Customer ${i + 1}</td><td>${(i * 3.7).toFixed(2)}</td><td><button type="button">Edit order ${10_000 + i}</button></td></tr>`,
  ).join('');
  const grid = `<h2>Orders</h2><table aria-label="Orders"><thead><tr><th>Order</th><th>Customer</th><th>Amount</th><th>Action</th></tr></thead><tbody>${rows}</tbody></table>`;
  const widgets = `<h2>Widgets</h2>
<iframe title="Payment frame" src="/frame" width="400" height="150"></iframe>
<shadow-widget></shadow-widget>`;
  const shadow = `<script>
customElements.define('shadow-widget', class extends HTMLElement {
  connectedCallback() {
    const root = this.attachShadow({ mode: 'open' });
    root.innerHTML = '<label>Coupon code <input type="text"></label> <button type="button">Apply shadow coupon</button>';
  }
});
</script>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Large page</title></head><body><main><h1>Large page</h1>
${widgetsFirst ? widgets + list + grid : list + grid + widgets}</main>${shadow}</body></html>`;
}

const framePage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Payment</title></head><body>
<label>Card number <input type="text"></label> <button type="button">Pay inside iframe</button></body></html>`;

async function serveLargePages(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://bench.invalid').pathname;
    const pages: Record<string, () => string> = {
      '/start': () => '<!doctype html><html lang="en"><head><title>Start</title></head><body><h1>Start</h1></body></html>',
      '/frame': () => framePage,
      '/top': () => largePage(true),
      '/bottom': () => largePage(false),
    };
    const body = pages[path]?.();
    res.writeHead(body ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body ?? 'not found');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** Whether the line naming `name` carries a ref in `snapshot`. */
const hasRef = (snapshot: string, name: string): boolean => snapshot.split('\n').some((l) => l.includes(name) && /\[ref=/.test(l));

interface LargePageFigures {
  layout: string;
  rawChars: number;
  rawLines: number;
  compactChars: number;
  compactLines: number;
  omitted: number;
  promptTokens: number;
  o200k: number;
  observeMs: number;
  iframeRaw: boolean;
  iframe: boolean;
  shadowRaw: boolean;
  shadow: boolean;
}

/**
 * `navigated`: the page is reached from another page of the tab, as the agent usually reaches it. Refs of a later
 * document carry a prefix (`f1e12` instead of `e12`), which makes every line of the snapshot a little longer.
 */
async function measureLargePage(pool: BrowserPool, base: string, path: string, navigated: boolean): Promise<LargePageFigures> {
  const layout = `${path === '/top' ? 'widgets at the top' : 'widgets at the bottom'}, ${navigated ? 'after a navigation' : 'first page'}`;
  return pool.withContext({}, async ({ page }) => {
    if (navigated) await page.goto(`${base}/start`, { waitUntil: 'load' });
    await page.goto(base + path, { waitUntil: 'load' });
    await page.frameLocator('iframe').getByRole('button', { name: 'Pay inside iframe' }).waitFor();
    await page.getByRole('button', { name: 'Apply shadow coupon' }).waitFor();
    const raw = await page.ariaSnapshot({ mode: 'ai' });
    const started = performance.now();
    const obs = await observe(page);
    const observeMs = performance.now() - started;
    // The whole first request the agent would send on this page.
    const messages = [
      { role: 'system', content: agentSystemPrompt },
      { role: 'user', content: `${taskMessage(task('Buy item 1200', 'The item is bought'))}\n\n${observationMessage(obs, [], 30)}` },
    ];
    const tools = agentToolsWith(toolGroupsFor('Buy item 1200'));
    const promptChars = JSON.stringify(messages).length + JSON.stringify(tools).length;
    const counted = promptTokens(messages as OpenAI.ChatCompletionMessageParam[], tools).total;
    return {
      layout,
      rawChars: raw.length,
      rawLines: raw.split('\n').length,
      compactChars: obs.snapshot.length,
      compactLines: obs.snapshot.split('\n').length,
      omitted: obs.omittedLines,
      promptTokens: estimateTokens(promptChars),
      o200k: counted,
      observeMs,
      iframeRaw: hasRef(raw, 'Pay inside iframe'),
      iframe: hasRef(obs.snapshot, 'Pay inside iframe'),
      shadowRaw: hasRef(raw, 'Apply shadow coupon'),
      shadow: hasRef(obs.snapshot, 'Apply shadow coupon'),
    };
  });
}

let fixture: FixtureApps | undefined;
let llm: ScriptedLlm | undefined;
let pool: BrowserPool | undefined;
let large: Server | undefined;
try {
  [fixture, llm] = await Promise.all([startFixtureApps(), startScriptedLlm()]);
  pool = createBenchPool(1);
  const client = createLlm({ apiKey: llm.apiKey, baseURL: llm.baseURL, model: 'scripted-model' }, { maxRetries: 0, timeoutMs: 30_000 })!;

  const login = await runScript(llm, client, pool, fixture.url, 'login+mug', loginGoal, 'The cart link shows one item', loginMoves);
  const checkout = await runScript(llm, client, pool, fixture.url, 'checkout', checkoutGoal, 'The order is confirmed', checkoutMoves, login.result.steps);
  const runs = [login, checkout];
  const all = runs.flatMap((r) => r.sizes);

  process.stdout.write('Burn-in prompts, per LLM request (chars of the request JSON, chars/4, and o200k_base tokens of the prompt as the model reads it)\n\n');
  process.stdout.write(
    table(
      ['script', '#', 'answer', 'system', 'user', 'tools', 'total chars', 'chars/4', 'o200k tokens', 'o200k tools'],
      all.map((s, i) => [s.script, i + 1 - (s.script === 'checkout' ? login.sizes.length : 0), s.answer, s.system, s.user, s.tools, s.total, s.tokens, s.o200k, s.o200kTools]),
    ),
  );
  process.stdout.write('\n');
  process.stdout.write(
    table(
      ['script', 'LLM calls', 'steps', 'calls/step', 'excl. done', 'avg o200k tokens', 'max o200k tokens', 'tools share'],
      [
        ...runs.map((r) => summaryRow(r.name, r.sizes, r.result.steps.length)),
        summaryRow(
          'all',
          all,
          runs.reduce((n, r) => n + r.result.steps.length, 0),
        ),
      ],
    ),
  );
  const avg = mean(all.map((s) => s.o200k));
  const max = Math.max(...all.map((s) => s.o200k));
  process.stdout.write(`\ngoal ≤ 1,500 prompt tokens per step, tools included (o200k): average ${Math.round(avg)}, max ${max} (${max <= 1_500 ? 'met' : 'NOT met'})\n`);

  const served = await serveLargePages();
  large = served.server;
  const figures: LargePageFigures[] = [];
  for (const path of ['/top', '/bottom']) {
    for (const navigated of [false, true]) figures.push(await measureLargePage(pool, served.url, path, navigated));
  }
  process.stdout.write(`\nLarge page: ${listItems} list items with buttons, a ${tableRows}-row table, an iframe and a shadow-DOM widget; observe() with its default budget\n\n`);
  process.stdout.write(
    table(
      ['layout', 'raw chars', 'raw lines', 'compact chars', 'lines', 'omitted', 'snapshot chars/4', 'prompt chars/4', 'prompt o200k', 'observe ms'],
      figures.map((f) => [f.layout, f.rawChars, f.rawLines, f.compactChars, f.compactLines, f.omitted, estimateTokens(f.compactChars), f.promptTokens, f.o200k, fixed(f.observeMs, 0)]),
    ),
  );
  process.stdout.write('\n');
  const yes = (b: boolean) => (b ? 'yes' : 'NO');
  process.stdout.write(
    table(
      ['layout', 'iframe ref (raw)', 'iframe ref (compact)', 'shadow ref (raw)', 'shadow ref (compact)'],
      figures.map((f) => [f.layout, yes(f.iframeRaw), yes(f.iframe), yes(f.shadowRaw), yes(f.shadow)]),
    ),
  );
} finally {
  await pool?.close();
  await Promise.all([fixture?.stop(), llm?.stop(), large && new Promise<void>((resolve) => large!.close(() => resolve()))]);
}
process.exit(0);
