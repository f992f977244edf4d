import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { DB } from '../../src/db/database.js';
import { seedProject } from '../../src/db/queries/admin.js';
import { LlmBudgetExceededError } from '../../src/domain/llm-usage.js';
import { callTool, createLlm, metered } from '../../src/llm/client.js';
import { createUsageRecorder, setLlmBudget, usageByDay, usageTotals } from '../../src/services/llm-usage.js';
import { renderMetrics } from '../../src/metrics.js';
import { freshDatabase } from '../support/app-context.js';
import { parseSamples, sumOf } from '../support/prometheus-text.js';
import { startScriptedLlm, type ScriptedLlm } from '../support/scripted-llm.js';

// Prices and the money budget, through the real adapter (the `openai` client over HTTP to the scripted server)
// and the real recorder writing to PGlite: the cost is the server's tokens times the configured prices.

const prices = { priced: { prompt: 2, completion: 8, cached: 0.5 } };
const tools = [
  { type: 'function' as const, function: { name: 'done', parameters: { type: 'object', properties: {} } } },
];
const messages = [
  // Over 1,024 tokens, so the second call's prefix is cached as OpenAI counts it (the first has nothing to reuse).
  { role: 'system' as const, content: 'You are a careful tester. '.repeat(200) },
  { role: 'user' as const, content: 'Finish.' },
];

/** The review role's `priced` model on the process's metrics. */
async function llmCounts() {
  const samples = parseSamples(await renderMetrics());
  const labels = { role: 'review', model: 'priced' };
  const tokens = (kind: string) => sumOf(samples, 'proctor_llm_tokens_total', { ...labels, kind });
  return {
    calls: sumOf(samples, 'proctor_llm_calls_total', labels),
    prompt: tokens('prompt'),
    completion: tokens('completion'),
    cached: tokens('cached'),
    cost: sumOf(samples, 'proctor_llm_cost_usd_total', labels),
  };
}

describe('LLM prices and the money budget', () => {
  let db: DB;
  let llm: ScriptedLlm;
  let projectId: string;
  beforeAll(async () => {
    [db, llm] = await Promise.all([freshDatabase('pglite'), startScriptedLlm()]);
    projectId = (await seedProject(db, { organization: 'Acme', project: 'Costs' })).projectId;
  });
  afterAll(async () => {
    await db?.destroy();
    await llm?.stop();
  });

  const endpoint = (model: string) =>
    createLlm({ apiKey: llm.apiKey, baseURL: llm.baseURL, model }, { maxRetries: 0 })!;
  const recorder = () => createUsageRecorder({ db, prices });

  it('prices each call by the tokens the server reported, cached prompt tokens at their own rate', async () => {
    const changeReviewId = randomUUID();
    const meter = recorder().meterFor({ projectId, purpose: 'review', changeReviewId });
    const before = await llmCounts();
    llm.enqueue({ toolCalls: [{ name: 'done', arguments: {} }] }, { toolCalls: [{ name: 'done', arguments: {} }] });
    await callTool(metered(endpoint('priced'), meter), messages, tools);
    await callTool(metered(endpoint('priced'), meter), messages, tools);
    const [a, b] = llm.usageSent;
    const cost = [a!, b!].reduce(
      (usd, u) =>
        usd +
        ((u.prompt_tokens - u.prompt_tokens_details.cached_tokens) * 2 +
          u.prompt_tokens_details.cached_tokens * 0.5 +
          u.completion_tokens * 8) /
          1e6,
      0,
    );
    expect(a!.prompt_tokens_details.cached_tokens).toBe(0);
    expect(b!.prompt_tokens_details.cached_tokens).toBeGreaterThan(0);
    const totals = await usageTotals({ db }, projectId, { changeReviewId });
    expect(totals).toMatchObject({
      calls: 2,
      promptTokens: a!.prompt_tokens + b!.prompt_tokens,
      cachedTokens: b!.prompt_tokens_details.cached_tokens,
      estimated: false,
    });
    expect(totals.costUsd).toBeCloseTo(cost, 6);
    // The process's metrics count the same, by role and model (docs/operations.md).
    const after = await llmCounts();
    expect(after.calls - before.calls).toBe(2);
    expect(after.prompt - before.prompt).toBe(a!.prompt_tokens + b!.prompt_tokens);
    expect(after.completion - before.completion).toBe(a!.completion_tokens + b!.completion_tokens);
    expect(after.cached - before.cached).toBe(b!.prompt_tokens_details.cached_tokens);
    expect(after.cost - before.cost).toBeCloseTo(cost, 9);
  });

  it('leaves the cost out when a model has no price (a partial sum would read as the whole cost)', async () => {
    const changeReviewId = randomUUID();
    const meter = recorder().meterFor({ projectId, purpose: 'review', changeReviewId });
    llm.enqueue({ toolCalls: [{ name: 'done', arguments: {} }] });
    await callTool(metered(endpoint('unpriced'), meter), messages, tools);
    const totals = await usageTotals({ db }, projectId, { changeReviewId });
    expect(totals.calls).toBe(1);
    expect(totals.costUsd).toBeUndefined();
    expect((await usageByDay({ db }, projectId, {})).total.costUsd).toBeUndefined();
  });

  it('a money budget below what was spent today refuses the next call before it reaches the server', async () => {
    const spent = (await usageByDay({ db }, projectId, {})).budget.spentToday.costUsd!;
    expect(spent).toBeGreaterThan(0);
    await setLlmBudget({ db }, projectId, { dailyTokens: null, dailyUsd: spent / 2 });
    const before = llm.requests.length;
    const meter = recorder().meterFor({ projectId, purpose: 'chat', chatId: randomUUID() });
    const refused = await callTool(metered(endpoint('priced'), meter), messages, tools).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LlmBudgetExceededError);
    expect((refused as Error).message).toMatch(/daily LLM budget is spent \(\d+\.\d{4} of [\d.]+ USD today/);
    expect(llm.requests.length).toBe(before);
    await setLlmBudget({ db }, projectId, { dailyTokens: null, dailyUsd: null });
  });

  it('reads PROCTOR_LLM_PRICES once, naming the variable when it is not a price table', () => {
    const env = { OPENAI_API_KEY: 'sk-test', PROCTOR_LLM_MODEL: 'priced' };
    expect(loadConfig('dev', { ...env, PROCTOR_LLM_PRICES: JSON.stringify(prices) }).llm?.prices).toEqual(prices);
    expect(loadConfig('dev', env).llm?.prices).toBeUndefined();
    expect(() => loadConfig('dev', { ...env, PROCTOR_LLM_PRICES: '{not json' })).toThrow(
      /PROCTOR_LLM_PRICES: must be JSON/,
    );
    expect(() => loadConfig('dev', { ...env, PROCTOR_LLM_PRICES: '{"m": {"prompt": -1, "completion": 1}}' })).toThrow(
      /PROCTOR_LLM_PRICES/,
    );
  });
});
