import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserPool } from '../../src/browser/context/pool.js';
import { RunValues } from '../../src/domain/run-values.js';
import type { Step } from '../../src/domain/steps.js';
import { runAgent } from '../../src/llm/agent.js';
import { createLlm } from '../../src/llm/client.js';
import { createBenchPool, shopConfigs, stepTimeoutMs } from '../../bench/support.js';
import { createRouter } from '../support/agent-script.js';
import { shopCredentials, startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';
import { checkoutGoal, checkoutMoves, loginGoal, loginMoves } from '../support/shop-agent-script.js';
import { startScriptedLlm, type ScriptedDialect, type ScriptedLlm } from '../support/scripted-llm.js';

// The fixture shop's checkout burned in on each kind of OpenAI-compatible server (test/support/scripted-llm.ts
// cites where each shape comes from: Ollama without tools, llama.cpp without --jinja, vLLM without a tool parser,
// a server refusing parallel_tool_calls, odd streams). The agent is the real loop in real Chromium; whatever the
// dialect, the recording is the same steps as on OpenAI's own API.

const dialects: ScriptedDialect[] = [
  'openai',
  'no-native-tools',
  'llamacpp-no-jinja',
  'text-tool-calls',
  'no-parallel-param',
  'odd-stream',
];
const summary = (steps: Step[]) => steps.map((s) => `${s.action} ${s.locator ?? ''} ${s.value ?? ''}`.trim());

describe('burning in the checkout on every server dialect', () => {
  let fixture: FixtureApps;
  let llm: ScriptedLlm;
  let pool: BrowserPool;
  const recorded = new Map<ScriptedDialect, { login: string[]; checkout: string[]; mode: string }>();
  beforeAll(async () => {
    [fixture, llm] = await Promise.all([startFixtureApps(), startScriptedLlm()]);
    pool = createBenchPool(1);
  });
  afterAll(async () => {
    await pool?.close();
    await Promise.all([fixture?.stop(), llm?.stop()]);
  });

  it.each(dialects)(
    '%s',
    async (dialect) => {
      llm.reset();
      llm.setDialect(dialect);
      const router = createRouter();
      router.add(loginGoal, loginMoves);
      router.add(checkoutGoal, checkoutMoves);
      llm.enqueue(...[...loginMoves, ...checkoutMoves].map(() => router.reply));
      const agent = createLlm({ apiKey: llm.apiKey, baseURL: llm.baseURL, model: 'scripted' }, { maxRetries: 0 })!;
      const startUrl = `${fixture.url}/shop/login`;
      const options = {
        llm: agent,
        baseUrl: startUrl,
        values: new RunValues({ configs: shopConfigs, secretNames: ['SHOP_PASSWORD'] }),
        maxSteps: 30,
        timeoutMs: stepTimeoutMs,
      };
      const [login, checkout] = await pool.withContext({}, async ({ page }) => {
        await page.goto(startUrl, { waitUntil: 'domcontentloaded' });
        const first = await runAgent(
          page,
          {
            applicationName: 'Shop',
            goal: loginGoal,
            expectedResult: 'The cart link shows one item',
            configNames: Object.keys(shopConfigs),
          },
          options,
        );
        const second = await runAgent(
          page,
          {
            applicationName: 'Shop',
            goal: checkoutGoal,
            expectedResult: 'The order is confirmed',
            configNames: Object.keys(shopConfigs),
          },
          options,
        );
        return [first, second];
      });
      expect(login).toMatchObject({ status: 'COMPLETED' });
      expect(checkout).toMatchObject({ status: 'COMPLETED' });
      expect(checkout.steps.map((s) => s.action)).toEqual([
        'click',
        'click',
        'fill',
        'fill',
        'select',
        'check',
        'click',
        'assert_visible',
      ]);
      recorded.set(dialect, {
        login: summary(login.steps),
        checkout: summary(checkout.steps),
        mode: agent.compat.toolMode,
      });
      if (dialect !== 'openai')
        expect({ login: summary(login.steps), checkout: summary(checkout.steps) }).toEqual({
          login: recorded.get('openai')!.login,
          checkout: recorded.get('openai')!.checkout,
        });
      // The secret never reached the model, in the prompt nor in the tools written into it.
      expect(JSON.stringify(llm.requests)).not.toContain(shopCredentials.password);
      expect(agent.compat.toolMode).toBe(
        {
          openai: 'native',
          'no-native-tools': 'text',
          'llamacpp-no-jinja': 'text',
          'text-tool-calls': 'native',
          'no-parallel-param': 'native-plain',
          'odd-stream': 'native',
        }[dialect],
      );
    },
    120_000,
  );
});
