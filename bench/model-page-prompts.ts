// What a heal's prompt and the assistant's look at a page (explore_page) cost, before and after they read the page
// as the burn-in does (src/llm/page-view.ts: short ref aliases, a budget in o200k tokens). Before: the snapshot as
// `observe()` gave it by default (6,000 characters with Playwright's refs for a heal; 4,000 for explore). After:
// the heal's real request to the scripted model (createLlmHealer), and explore's own report. On the fixture shop's
// sign-in page in German (the recorded "Sign in" button is "Anmelden" now) and on the large page after a
// navigation, its buttons renamed "Purchase item N" (the recorded one said "Buy item 2").
//
//   node --import tsx bench/model-page-prompts.ts
import type OpenAI from 'openai';
import type { Page } from 'playwright-core';
import { observe } from '../src/browser/record/snapshot.js';
import type { Step } from '../src/domain/steps.js';
import { healTools } from '../src/llm/agent-tools.js';
import { createLlm } from '../src/llm/client.js';
import { createLlmHealer, healPrompt } from '../src/llm/heal.js';
import { defaultPageTokens, observeWithin } from '../src/llm/page-view.js';
import { countTokens, promptTokens } from '../src/llm/token-count.js';
import { describeObservation, exploreSnapshotTokens } from '../src/services/chat-explore.js';
import { refOf, tool } from '../test/support/agent-script.js';
import { startFixtureApps, type Variant } from '../test/support/fixture-apps.js';
import { startScriptedLlm } from '../test/support/scripted-llm.js';
import { createBenchPool, table, watchdog } from './support.js';

watchdog(120, 'bench/model-page-prompts');

interface Case {
  page: string;
  variant: Variant;
  open: (page: Page, base: string) => Promise<void>;
  step: Step;
  /** The line of the element the heal must pick. */
  pick: string;
  healed: string;
}

/** The shop's Sign in button, recorded in English and healed on the German page. */
const germanSignIn: Pick<Case, 'step' | 'pick' | 'healed'> = {
  step: {
    action: 'click',
    locator: "getByRole('button', { name: 'Sign in' })",
    target: { role: 'button', name: 'Sign in' },
    description: 'Sign in',
  },
  pick: 'button "Anmelden"',
  healed: "getByRole('button', { name: 'Anmelden' })",
};

const cases: Case[] = [
  {
    page: 'shop sign-in (German)',
    variant: 'de',
    open: async (page, base) => void (await page.goto(`${base}/shop/login`, { waitUntil: 'load' })),
    ...germanSignIn,
  },
  {
    // A replay that navigated before the heal: Playwright's refs carry a prefix then (`f2e7`), aliases do not.
    page: 'shop sign-in (German), after a navigation',
    variant: 'de',
    open: async (page, base) => {
      await page.goto(`${base}/large/start`, { waitUntil: 'load' });
      await page.goto(`${base}/shop/login`, { waitUntil: 'load' });
    },
    ...germanSignIn,
  },
  {
    page: 'large page (renamed)',
    variant: 'renamed',
    open: async (page, base) => {
      await page.goto(`${base}/large/start`, { waitUntil: 'load' });
      await page.goto(`${base}/large/bottom`, { waitUntil: 'load' });
      await page.frameLocator('iframe').getByRole('button', { name: 'Pay inside iframe' }).waitFor();
    },
    step: {
      action: 'click',
      locator: "getByRole('button', { name: 'Buy item 2', exact: true })",
      target: { role: 'button', name: 'Buy item 2' },
      description: 'Buy item 2',
    },
    pick: 'button "Purchase item 2"',
    healed: "getByRole('button', { name: 'Purchase item 2', exact: true })",
  },
];

const [fixture, llm] = await Promise.all([startFixtureApps(), startScriptedLlm()]);
const pool = createBenchPool(1);
const client = createLlm(
  { apiKey: llm.apiKey, baseURL: llm.baseURL, model: 'scripted-model' },
  { maxRetries: 0, timeoutMs: 30_000 },
)!;
const rows: (string | number)[][] = [];
try {
  for (const c of cases) {
    fixture.setVariant(c.variant);
    await pool.withContext({}, async ({ page }) => {
      await c.open(page, fixture.url);
      const error = new Error(`no element matches ${c.step.locator} (step: ${c.step.description})`);
      // Before: observe's defaults, as the heal and explore called it.
      const old = await observe(page, {});
      const healBefore = promptTokens(healPrompt(c.step, error.message, old), healTools).total;
      const exploreBefore = countTokens(describeObservation(await observe(page, { maxChars: 4_000 })));
      // After: the healer's own request, answered by the scripted model with the alias of the element to pick.
      const first = llm.requests.length;
      llm.enqueue((r) => tool('select_element', { ref: refOf(r, c.pick), reason: 'same role and place, renamed' }));
      const heal = await createLlmHealer(client, {})(page, c.step, error);
      const request = llm.requests[first]!;
      const healAfter = promptTokens(
        request.messages as OpenAI.ChatCompletionMessageParam[],
        (request.tools ?? []) as OpenAI.ChatCompletionTool[],
      ).total;
      const exploreAfter = countTokens(
        describeObservation(await observeWithin({ page, secrets: {}, budget: () => exploreSnapshotTokens })),
      );
      const right = 'locator' in heal && heal.locator === c.healed;
      rows.push([
        c.page,
        countTokens(old.snapshot),
        healBefore,
        healAfter,
        right ? 'yes' : `NO (${JSON.stringify(heal)})`,
        exploreBefore,
        exploreAfter,
      ]);
    });
  }
} finally {
  fixture.setVariant('original');
  await pool.close();
  await Promise.all([fixture.stop(), llm.stop()]);
}
process.stdout.write(
  'Heal and explore_page prompts, o200k tokens: before (observe defaults, Playwright refs) and after (page-view: aliases, token budget)\n\n',
);
process.stdout.write(
  table(
    ['page', 'old snapshot', 'heal before', 'heal after', 'heal picked right', 'explore before', 'explore after'],
    rows,
  ),
);
// Issue 32: a heal's page has the burn-in's page budget (defaultPageTokens); the prompt around it is a few hundred.
process.stdout.write(
  `\nheal prompts at most ${Math.max(...rows.map((r) => r[3] as number))} tokens (the page within ${defaultPageTokens})\n`,
);
process.exit(0);
