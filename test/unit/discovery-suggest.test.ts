import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DB } from '../../src/db/database.js';
import { seedProject } from '../../src/db/queries/admin.js';
import { computeCoverage, type MapPattern } from '../../src/domain/coverage.js';
import { suggestionCandidates, type SuggestionCandidate } from '../../src/domain/suggestions.js';
import { createLlm, metered } from '../../src/llm/client.js';
import { wordSuggestions } from '../../src/llm/discovery-suggest.js';
import { createUsageRecorder, setLlmBudget, usageByDay } from '../../src/services/llm-usage.js';
import { lastPrompt, tool } from '../support/agent-script.js';
import { freshDatabase } from '../support/app-context.js';
import { base, shopMap, shopTests } from '../support/coverage-fixture.js';
import { startScriptedLlm, type ChatRequest, type ScriptedLlm } from '../support/scripted-llm.js';

// The model words the suggestions the map chose, a batch of at most 20 per call, through the real `openai` client
// against the scripted OpenAI-compatible server; its usage goes to the real recorder (PGlite), whose budget stops it.
// Without the model (none configured, endpoint down, budget spent) the map's own words stand, and say so.

const shopCandidates = suggestionCandidates(shopMap, computeCoverage(shopMap, shopTests, base));

/** `count` pages with a form each, none covered: `count` candidates. */
function manyForms(count: number): SuggestionCandidate[] {
  const map: MapPattern[] = Array.from({ length: count }, (_, i) => ({
    pattern: `/area${i}`,
    example: `/area${i}`,
    depth: 1,
    forms: [
      {
        key: `f${i}`,
        name: `Form ${i}`,
        method: 'post',
        action: `/area${i}`,
        fields: [{ label: `Field ${i}`, name: `field${i}`, type: 'text', required: true }],
        submit: 'Save',
        search: false,
      },
    ],
  }));
  return suggestionCandidates(map, computeCoverage(map, [], base), { max: count });
}

/** Answers every candidate id in the prompt (the scripted model doing its job). */
const wordEvery = (req: ChatRequest) =>
  tool('write_suggestions', {
    suggestions: [...lastPrompt(req).matchAll(/^(c\d+): start page (\S+)/gm)].map(([, id, page]) => ({
      id,
      name: `Use the form on ${page}`,
      goal: `Open ${page}, fill in every field with realistic values and save.`,
      expectedResult: 'A confirmation shows',
      reason: 'Users rely on it.',
    })),
  });

describe('wording suggestions with the model', () => {
  let llm: ScriptedLlm;
  let db: DB;
  let projectId: string;
  beforeAll(async () => {
    [llm, db] = await Promise.all([startScriptedLlm(), freshDatabase('pglite')]);
    projectId = (await seedProject(db, { organization: 'Acme', project: 'Discovery' })).projectId;
  });
  afterAll(async () => {
    await db?.destroy();
    await llm?.stop();
  });
  beforeEach(() => llm.reset());
  const endpoint = () => createLlm({ apiKey: llm.apiKey, baseURL: llm.baseURL, model: 'scripted' }, { maxRetries: 0 })!;

  it('one call for the shop: the facts of each candidate in, a validated wording out; one out of bounds gets the defaults', async () => {
    llm.enqueue((req) => {
      const reply = wordEvery(req) as unknown as { toolCalls: [{ arguments: { suggestions: { name: string }[] } }] };
      reply.toolCalls[0].arguments.suggestions[2]!.name = 'x'.repeat(81); // too long for a test name
      return reply as never;
    });
    const result = await wordSuggestions(endpoint(), shopCandidates, { applicationName: 'Shop', intent: 'the cart' });
    expect(result.calls).toBe(1);
    expect(llm.requests).toHaveLength(1);
    const prompt = lastPrompt(llm.requests[0]!);
    expect(prompt).toContain('The team asked to look at: the cart');
    expect(prompt).toContain('c1: start page /cart ("Cart")\n  form "Coupon" (POST to /cart/coupon), submit: "Apply"');
    expect(prompt).toContain('  - Coupon code: text, required');
    expect(prompt).toContain('c4: start page /orders ("Orders")\n  page /orders: no test visits it');
    expect(result.suggestions.map((s) => [s.startPage, s.writtenBy, s.name])).toEqual([
      ['/cart', 'model', 'Use the form on /cart'],
      ['/settings', 'model', 'Use the form on /settings'],
      ['/', 'defaults', 'Search with "Search" on /'],
      ['/orders', 'model', 'Use the form on /orders'],
    ]);
    expect(result.suggestions[2]!.reason).toMatch(/written without the model: the model left it out/);
    expect(result.fallback).toMatch(/left some out/);
    // What the map decided stays: fingerprints and order are the candidates'.
    expect(result.suggestions.map((s) => s.fingerprint)).toEqual(shopCandidates.map((c) => c.fingerprint));
  });

  it('45 candidates: three calls of at most 20, every one worded by the model', async () => {
    llm.enqueue(wordEvery, wordEvery, wordEvery);
    const candidates = manyForms(45);
    const result = await wordSuggestions(endpoint(), candidates, { applicationName: 'Big' });
    expect(result.calls).toBe(3);
    expect(llm.requests.map((r) => lastPrompt(r).match(/^c\d+:/gm)!.length)).toEqual([20, 20, 5]);
    expect(result.suggestions.every((s) => s.writtenBy === 'model')).toBe(true);
    expect(result.fallback).toBeUndefined();
  });

  it('within the project budget: once it is spent, the remaining batches are worded from the map and say why', async () => {
    await setLlmBudget({ db }, projectId, { dailyTokens: 1, dailyUsd: null });
    const meter = createUsageRecorder({ db }).meterFor({ projectId, purpose: 'chat' });
    llm.enqueue(wordEvery, wordEvery);
    const result = await wordSuggestions(metered(endpoint(), meter), manyForms(30), { applicationName: 'Big' });
    // The first call spends more than the 1-token budget: the second is refused before it reaches the server.
    expect(result.calls).toBe(2);
    expect(llm.requests).toHaveLength(1);
    expect(result.suggestions.map((s) => s.writtenBy)).toEqual([
      ...Array<string>(20).fill('model'),
      ...Array<string>(10).fill('defaults'),
    ]);
    expect(result.suggestions[25]!.reason).toMatch(
      /written without the model: the project's daily LLM budget is spent/,
    );
    expect(result.fallback).toBe("the project's daily LLM budget is spent");
    expect((await usageByDay({ db }, projectId, {})).total.calls).toBe(1);
    await setLlmBudget({ db }, projectId, { dailyTokens: null, dailyUsd: null });
  });

  it('an endpoint that fails, or no model at all: every suggestion still comes, in the map words', async () => {
    llm.failNext(1, 500);
    const down = await wordSuggestions(endpoint(), shopCandidates, { applicationName: 'Shop' });
    expect(down.suggestions.map((s) => s.writtenBy)).toEqual(['defaults', 'defaults', 'defaults', 'defaults']);
    expect(down.fallback).toBe('the model is unavailable');
    expect(down.suggestions[0]!.reason).toMatch(/written without the model: the model is unavailable/);

    const none = await wordSuggestions(undefined, shopCandidates, { applicationName: 'Shop' });
    expect(none.calls).toBe(0);
    expect(none.fallback).toBe('no model is configured');
    expect(none.suggestions.map((s) => s.goal)).toEqual(down.suggestions.map((s) => s.goal));
  });

  it('an answer that is not the tool, or not its shape, words nothing: the defaults stand', async () => {
    llm.enqueue({ content: 'Here are some ideas: test the cart.' }, tool('write_suggestions', { suggestions: 'all' }));
    for (let i = 0; i < 2; i++) {
      const result = await wordSuggestions(endpoint(), shopCandidates, { applicationName: 'Shop' });
      expect(result.suggestions.every((s) => s.writtenBy === 'defaults')).toBe(true);
      expect(result.fallback).toMatch(/left some out/);
    }
  });
});
