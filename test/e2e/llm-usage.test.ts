import { describe, expect, it } from 'vitest';
import { refOf, tool, type AgentMove } from '../support/agent-script.js';
import { shopCredentials } from '../support/fixture-apps.js';
import { pollChat } from '../support/chat-polling.js';
import { changeReviewAction, reviewResponder } from '../support/review-script.js';
import type { ScriptedUsage } from '../support/scripted-llm.js';
import { signInAndAddMug } from '../support/shop-agent-script.js';
import { useShopStack } from '../support/shop-stack.js';
import { serveForSignIn } from '../support/sign-in-http.js';
import { waitForGeneration, waitForRun } from '../support/worker-context.js';

// Usage accounting on the real stack (Temporal worker, Postgres, Chromium, the scripted model over HTTP): every
// figure the API shows is the sum of what the server reported for the calls of that piece of work, or an estimate
// marked as such; a spent daily budget refuses new LLM work while replays still run.

const goal = 'Sign in and put the mug in the cart';
const moves: AgentMove[] = [
  ...signInAndAddMug,
  () => tool('assert_text', { text: shopCredentials.email, description: 'The shopper is signed in' }),
  () => tool('done', { summary: 'ok' }),
];
// The German shop: the Sign in button is found again only by a heal (one LLM call).
const healSignIn = (r: Parameters<AgentMove>[0]) =>
  tool('select_element', { ref: refOf(r, 'button "Anmelden"'), reason: "The form's submit button, German name" });

const sum = (usage: ScriptedUsage[]) => ({
  calls: usage.length,
  promptTokens: usage.reduce((n, u) => n + u.prompt_tokens, 0),
  completionTokens: usage.reduce((n, u) => n + u.completion_tokens, 0),
  cachedTokens: usage.reduce((n, u) => n + u.prompt_tokens_details.cached_tokens, 0),
  estimated: false,
});
const today = () => new Date().toISOString().slice(0, 10);

describe('usage accounting and the daily budget', () => {
  const shop = useShopStack();
  let testCaseId: string;
  let planShortId: string;
  let healedRunShortId: string;
  let chatShortId: string;
  let reviewShortId: string;
  const reported: ScriptedUsage[] = [];
  const byPurpose: Record<string, ScriptedUsage[]> = { burnIn: [], heal: [], chat: [], review: [] };

  async function runPlan(variant: 'original' | 'de') {
    shop.fixture.setVariant(variant);
    try {
      const before = shop.llm.requests.length;
      const started = await shop.stack.call('POST', '/v1/run', { testPlanShortId: planShortId });
      expect(started.status, JSON.stringify(started.body)).toBe(200);
      const run = await waitForRun(shop.stack, started.body.run.shortId);
      return { run, llmRequests: shop.llm.requests.length - before };
    } finally {
      shop.fixture.setVariant('original');
    }
  }

  it("a burn-in's usage is the sum the server reported for its calls, cached tokens included", async () => {
    const from = shop.llm.usageSent.length;
    const generated = await shop.burnIn('Mug with usage', goal, moves);
    testCaseId = generated.id;
    const sent = shop.llm.usageSent.slice(from);
    reported.push(...sent);
    byPurpose.burnIn!.push(...sent);
    expect(sent).toHaveLength(moves.length);
    // After the first call, the system prompt and tools are a prefix the server has seen (OpenAI's rule: ≥ 1,024 tokens).
    expect(sent.slice(1).every((u) => u.prompt_tokens_details.cached_tokens > 0)).toBe(true);
    const shown = (await shop.stack.call('GET', `/v1/test-cases/${testCaseId}`)).body.usage;
    expect(shown).toEqual(sum(sent));
  });

  it("a run's usage is its heals' calls; a replay that needs no heal adds nothing", async () => {
    await shop.stack.call('PATCH', `/v1/test-cases/${testCaseId}`, { isEnabled: true });
    planShortId = (await shop.stack.call('POST', '/v1/test-plans', { name: 'Usage', testCaseIds: [testCaseId] })).body
      .shortId;
    const plain = await runPlan('original');
    expect(plain.run.result).toBe('PASSED');
    expect(plain.llmRequests).toBe(0);
    expect((await shop.stack.call('GET', `/v1/run/${plain.run.shortId}`)).body.usage).toEqual({
      calls: 0,
      promptTokens: 0,
      completionTokens: 0,
      cachedTokens: 0,
      estimated: false,
    });

    const from = shop.llm.usageSent.length;
    shop.llm.enqueue(healSignIn);
    const healed = await runPlan('de');
    healedRunShortId = healed.run.shortId;
    expect(healed.run.runTestCases[0].error).toBeNull();
    expect(healed.run.result).toBe('PASSED');
    expect(healed.llmRequests).toBe(1);
    const sent = shop.llm.usageSent.slice(from);
    reported.push(...sent);
    byPurpose.heal!.push(...sent);
    expect((await shop.stack.call('GET', `/v1/run/${healed.run.shortId}`)).body.usage).toEqual(sum(sent));
  });

  it("a chat turn's usage is what its streamed calls reported", async () => {
    const from = shop.llm.usageSent.length;
    shop.llm.enqueue({ content: 'Your project has one test case.' });
    const created = await shop.stack.call('POST', '/v1/chat', { message: 'How many tests do I have?' });
    expect(created.status).toBe(202);
    chatShortId = created.body.shortId;
    const reply = (await pollChat(shop.stack, created.body.shortId)).final.messages[0];
    expect(reply).toMatchObject({ role: 'assistant', status: 'COMPLETED' });
    const sent = shop.llm.usageSent.slice(from);
    reported.push(...sent);
    byPurpose.chat!.push(...sent);
    expect(sent).toHaveLength(1);
    expect(shop.llm.requests.at(-1)!.stream_options).toEqual({ include_usage: true });
    expect(reply.usage).toEqual(sum(sent));
  });

  it("a change review's usage is its own calls: choosing the tests and wording the verdict", async () => {
    const from = shop.llm.usageSent.length;
    const model = reviewResponder({
      select: () => ({ existingTestCaseIds: [testCaseId], newTests: [], reasoning: 'The diff touches sign-in.' }),
      verdict: () => ({ verdict: 'Approved', summary: 'Sign-in works on the preview.', evaluationDetails: 'It ran.' }),
    });
    shop.llm.enqueue(model, model);
    const outcome = await changeReviewAction(shop.stack, {
      mode: 'rawChanges',
      changes: {
        changeDescription: 'Rename the sign-in button',
        diff: 'diff --git a/src/Login.tsx b/src/Login.tsx\n--- a/src/Login.tsx\n+++ b/src/Login.tsx\n@@ -1 +1 @@\n-<button>Sign in</button>\n+<button>Sign in now</button>\n',
      },
      applicationOverrides: [
        { applicationShortId: shop.appShortId, environment: { url: `${shop.fixture.url}/shop/login` } },
      ],
    });
    expect(outcome.verdict).toBe('Approved');
    const sent = shop.llm.usageSent.slice(from);
    reported.push(...sent);
    byPurpose.review!.push(...sent);
    expect(sent).toHaveLength(2);
    reviewShortId = outcome.shortId;
    expect((await shop.stack.call('GET', `/v1/chat/${outcome.shortId}/review`)).body.usage).toEqual(sum(sent));
  });

  it('the dashboard shows the same figures on the test case, run and conversation pages', async () => {
    const web = await serveForSignIn(shop.stack.app);
    try {
      const signedIn = await web.signIn(shop.stack.tenant.token);
      const cookie = [signedIn.headers['set-cookie']]
        .flat()
        .map((c) => String(c).split(';')[0])
        .join('; ');
      const page = async (path: string) => (await fetch(`${web.url}${path}`, { headers: { cookie } })).text();
      const line = (u: { calls: number; promptTokens: number; cachedTokens: number; completionTokens: number }) =>
        // A heal's one call has nothing cached (the first request of its prefix): the page says nothing of caching then.
        `${u.calls.toLocaleString('en-US')} LLM call${u.calls === 1 ? '' : 's'}, ${u.promptTokens.toLocaleString('en-US')} prompt tokens${u.cachedTokens > 0 ? ` (${u.cachedTokens.toLocaleString('en-US')} cached)` : ''}, ${u.completionTokens.toLocaleString('en-US')} completion tokens`;
      const testCase = (await shop.stack.call('GET', `/v1/test-cases/${testCaseId}`)).body;
      expect(await page(`/test-cases/${testCaseId}`)).toContain(line(testCase.usage));
      expect(await page(`/runs/${healedRunShortId}`)).toContain(
        line((await shop.stack.call('GET', `/v1/run/${healedRunShortId}`)).body.usage),
      );
      const chat = (await shop.stack.call('GET', `/v1/chat/${chatShortId}`)).body;
      expect(await page(`/chats/${chatShortId}`)).toContain(line(chat.messages[0].usage));
      expect(await page(`/chats/${reviewShortId}`)).toContain(
        line((await shop.stack.call('GET', `/v1/chat/${reviewShortId}/review`)).body.usage),
      );
    } finally {
      await web.close();
    }
  });

  it('GET /v1/usage: today holds every call the server reported; bad dates are a 400 with a message', async () => {
    const usage = await shop.stack.call('GET', `/v1/usage?from=${today()}&to=${today()}`);
    expect(usage.status).toBe(200);
    const perPurpose = Object.fromEntries(Object.entries(byPurpose).map(([purpose, sent]) => [purpose, sum(sent)]));
    expect(usage.body.days).toEqual([{ date: today(), ...sum(reported), byPurpose: perPurpose }]);
    expect(usage.body.total).toEqual(sum(reported));
    expect(usage.body.budget).toMatchObject({ dailyTokens: null, dailyUsd: null, exceeded: false });
    expect((await shop.stack.call('GET', '/v1/usage')).body.days.at(-1)).toEqual({
      date: today(),
      ...sum(reported),
      byPurpose: perPurpose,
    });
    expect((await shop.stack.call('GET', '/v1/usage?from=2026-01-01&to=2026-01-31')).body.days).toEqual([]);

    for (const query of [
      'from=yesterday',
      'to=2026-02-30',
      'from=0000-01-01&to=0000-01-02',
      'from=2026-03-02&to=2026-03-01',
      'from=2024-01-01&to=2026-01-01',
    ]) {
      const bad = await shop.stack.call('GET', `/v1/usage?${query}`);
      expect(bad.status, query).toBe(400);
      expect(bad.body.message, query).toMatch(/from|to/);
    }
  });

  it('a server that reports no usage: the chat turn is estimated from the characters, and says so', async () => {
    shop.llm.setUsageMode('none');
    try {
      const text = 'Nothing to report.';
      shop.llm.enqueue({ content: text });
      const created = await shop.stack.call('POST', '/v1/chat', { message: 'Anything new?' });
      const reply = (await pollChat(shop.stack, created.body.shortId)).final.messages[0];
      const request = shop.llm.requests.at(-1)!;
      expect(reply.usage).toEqual({
        calls: 1,
        promptTokens: Math.ceil((JSON.stringify(request.messages).length + JSON.stringify(request.tools).length) / 4),
        completionTokens: Math.ceil(text.length / 4),
        cachedTokens: 0,
        estimated: true,
      });
      const day = (await shop.stack.call('GET', `/v1/usage?from=${today()}`)).body.days[0];
      expect(day.calls).toBe(reported.length + 1);
      expect(day.estimated).toBe(true);
    } finally {
      shop.llm.setUsageMode('reported');
    }
  });

  it('a reply cancelled midway still counts its prompt and what streamed, as an estimate', async () => {
    const reply = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
    shop.llm.enqueue({ content: reply, fragmentDelayMs: 40 });
    const { shortId } = (await shop.stack.call('POST', '/v1/chat', { message: 'Say a lot' })).body;
    let cancelled = false;
    const ended = (
      await pollChat(shop.stack, shortId, {
        intervalMs: 50,
        onAnswer: async (c) => {
          if (!cancelled && c.messages[0].status === 'PARTIAL' && c.messages[0].text.length > 20) {
            cancelled = true;
            expect((await shop.stack.call('POST', `/v1/chat/${shortId}/cancel`)).status).toBe(202);
          }
        },
      })
    ).final.messages[0];
    expect(ended.status).toBe('CANCELLED');
    const request = shop.llm.requests.at(-1)!;
    expect(ended.usage).toMatchObject({
      calls: 1,
      promptTokens: Math.ceil((JSON.stringify(request.messages).length + JSON.stringify(request.tools).length) / 4),
      cachedTokens: 0,
      estimated: true,
    });
    expect(ended.usage.completionTokens).toBeGreaterThanOrEqual(Math.ceil(ended.text.length / 4));
    expect(ended.usage.completionTokens).toBeLessThan(Math.ceil(reply.length / 4));
  });

  it('a spent budget refuses burn-ins and chat turns with 429, fails heals, and still runs replays', async () => {
    const spent = (await shop.stack.call('GET', '/v1/usage')).body.budget.spentToday;
    expect((await shop.stack.call('PUT', '/v1/usage/budget', { dailyTokens: -1, dailyUsd: null })).status).toBe(400);
    const set = await shop.stack.call('PUT', '/v1/usage/budget', {
      dailyTokens: spent.promptTokens + spent.completionTokens,
      dailyUsd: null,
    });
    expect(set.body).toEqual({ dailyTokens: spent.promptTokens + spent.completionTokens, dailyUsd: null });
    // A project setting: its change is audited with the token that made it.
    const audited = (await shop.stack.call('GET', '/v1/audit-log?kind=project_settings.updated')).body.events[0];
    expect(audited).toMatchObject({ actor: { type: 'token' }, details: { llmBudget: set.body } });
    const requests = shop.llm.requests.length;

    const burnIn = await shop.stack.call('POST', '/v1/test-cases', {
      name: 'Refused',
      goal,
      applicationShortId: shop.appShortId,
    });
    expect(burnIn.status).toBe(429);
    expect(burnIn.body.message).toMatch(/daily LLM budget is spent \(\d+ of \d+ tokens today/);
    const chat = await shop.stack.call('POST', '/v1/chat', { message: 'Hello?' });
    expect(chat.status).toBe(429);
    expect(chat.body.message).toContain('daily LLM budget is spent');
    const review = await shop.stack.call('POST', '/v1/chat/change-review', {
      mode: 'rawChanges',
      changes: { changeDescription: 'Anything', diff: 'diff --git a/x b/x\n' },
      applicationOverrides: [
        { applicationShortId: shop.appShortId, environment: { url: `${shop.fixture.url}/shop/login` } },
      ],
    });
    expect(review.status).toBe(429);
    expect(review.body.message).toContain('daily LLM budget is spent');
    expect((await shop.stack.call('GET', '/v1/usage')).body.budget.exceeded).toBe(true);

    // A replay needs no model: it runs and passes.
    const replay = await runPlan('original');
    expect(replay.run.result).toBe('PASSED');
    // A replay that needs a heal fails with the reason instead of calling the model.
    const heal = await runPlan('de');
    expect(heal.run.result).toBe('FAILED');
    expect(heal.run.runTestCases[0].error).toContain('daily LLM budget is spent');
    expect(shop.llm.requests.length).toBe(requests);

    // Raised again, the same work is taken.
    await shop.stack.call('PUT', '/v1/usage/budget', { dailyTokens: null, dailyUsd: null });
    shop.llm.enqueue({ content: 'Back.' });
    const again = await shop.stack.call('POST', '/v1/chat', { message: 'Hello again?' });
    expect(again.status).toBe(202);
    expect((await pollChat(shop.stack, again.body.shortId)).final.messages[0]).toMatchObject({
      status: 'COMPLETED',
      text: 'Back.',
    });
  });

  it('a burn-in that spends the budget fails at its next LLM call with the reason, not retried', async () => {
    const spent = (await shop.stack.call('GET', '/v1/usage')).body.budget.spentToday;
    // One token left: the first call is made (and spends far more), the second is refused.
    await shop.stack.call('PUT', '/v1/usage/budget', {
      dailyTokens: spent.promptTokens + spent.completionTokens + 1,
      dailyUsd: null,
    });
    try {
      const requests = shop.llm.requests.length;
      shop.router.add('Spend the budget', moves);
      shop.llm.enqueue(...moves.map(() => shop.router.reply));
      const created = await shop.stack.call('POST', '/v1/test-cases', {
        name: 'Over budget',
        goal: 'Spend the budget',
        applicationShortId: shop.appShortId,
        configShortIds: shop.configShortIds,
      });
      expect(created.status).toBe(200);
      const generated = await waitForGeneration(shop.stack, created.body.testCase.id);
      expect(generated.generationStatus).toBe('FAILED');
      expect(generated.failureReason).toContain("the project's daily LLM budget is spent");
      expect(shop.llm.requests.length - requests).toBe(1);
      expect(generated.usage).toMatchObject({ calls: 1, estimated: false });
    } finally {
      await shop.stack.call('PUT', '/v1/usage/budget', { dailyTokens: null, dailyUsd: null });
      shop.llm.reset();
    }
  });
});
