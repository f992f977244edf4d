// Every combination of the agent's optional tool groups (none, email, http, both) on every page of the bench (the
// fixture shop's four pages and the large page, widgets at the top and at the bottom), with no history and with a
// long burn-in's 25 steps: the prompt as the agent builds it (`stepPrompt`), in o200k tokens, and whether the large
// page's iframe and shadow-root controls still show. Shared by bench/burn-in-prompt.ts and
// test/e2e/burn-in-prompt-groups.test.ts.
import type { Page } from 'playwright-core';
import type { BrowserPool } from '../src/browser/context/pool.js';
import { stepPrompt } from '../src/llm/agent-prompt.js';
import { agentToolsWith, type ToolGroup } from '../src/llm/agent-tools.js';
import type { AgentTask } from '../src/llm/prompts.js';
import { shopCredentials } from '../test/support/fixture-apps.js';
import { promptParts, type PromptParts } from './burn-in-prompt-parts.js';

export const groupCombinations: ToolGroup[][] = [[], ['email'], ['http'], ['email', 'http']];
export const historyLengths = [0, 25];

// A goal that calls for both groups, as the agent's task would say it.
const task: AgentTask = {
  applicationName: 'Shop',
  goal: 'Sign up, confirm the email address, seed an order through the API and check out the cart with express shipping',
  expectedResult: 'The order is confirmed and the confirmation mail arrives',
  configNames: ['SHOP_EMAIL', 'SHOP_PASSWORD'],
};

export interface GroupRow {
  page: string;
  groups: string;
  history: number;
  parts: PromptParts;
  /** The large page only: whether the iframe's and the shadow root's buttons carry a ref in the snapshot. */
  widgets?: boolean;
}

const history = (n: number) =>
  Array.from({ length: n }, (_, i) => `${i + 1}. click getByRole('button', { name: 'Edit order ${10_000 + i}' }) ✓`);
const hasRef = (snapshot: string, name: string) =>
  snapshot.split('\n').some((l) => l.includes(name) && /\[ref=/.test(l));

/** The pages, each opened in `page` by its own steps, in the order a shopper reaches them. */
function pages(base: string): { name: string; large: boolean; open: (page: Page) => Promise<void> }[] {
  const large = (path: string) => async (page: Page) => {
    await page.goto(`${base}/large/start`, { waitUntil: 'load' });
    await page.goto(base + path, { waitUntil: 'load' });
    await page.frameLocator('iframe').getByRole('button', { name: 'Pay inside iframe' }).waitFor();
    await page.getByRole('button', { name: 'Apply shadow coupon' }).waitFor();
  };
  return [
    {
      name: 'shop login',
      large: false,
      open: async (page) => void (await page.goto(`${base}/shop/login`, { waitUntil: 'load' })),
    },
    {
      name: 'shop products',
      large: false,
      open: async (page) => {
        await page.getByRole('textbox', { name: 'Email' }).fill(shopCredentials.email);
        await page.getByRole('textbox', { name: 'Password' }).fill(shopCredentials.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('button', { name: 'Add Coffee mug to cart' }).waitFor();
      },
    },
    {
      name: 'shop cart',
      large: false,
      open: async (page) => {
        await page.getByRole('button', { name: 'Add Coffee mug to cart' }).click();
        await page.getByRole('link', { name: 'Cart (1)' }).click();
        await page.getByRole('button', { name: 'Checkout' }).waitFor();
      },
    },
    {
      name: 'shop checkout',
      large: false,
      open: async (page) => {
        await page.getByRole('button', { name: 'Checkout' }).click();
        await page.waitForURL(/\/shop\/checkout/);
        await page.waitForLoadState('load');
      },
    },
    { name: 'large page, widgets at the top', large: true, open: large('/large/top') },
    { name: 'large page, widgets at the bottom', large: true, open: large('/large/bottom') },
  ];
}

/** The whole matrix: pages x tool-group combinations x history lengths. */
export async function groupMatrix(pool: BrowserPool, base: string): Promise<GroupRow[]> {
  const rows: GroupRow[] = [];
  await pool.withContext({}, async ({ page }) => {
    for (const p of pages(base)) {
      await p.open(page);
      for (const groups of groupCombinations) {
        const tools = agentToolsWith(new Set(groups));
        for (const n of historyLengths) {
          const { messages, obs } = await stepPrompt({
            page,
            task,
            history: history(n),
            remaining: 30 - n,
            secrets: {},
            tabs: '',
          });
          rows.push({
            page: p.name,
            groups: groups.join('+') || 'none',
            history: n,
            parts: promptParts(messages, tools),
            ...(p.large && {
              widgets: hasRef(obs.snapshot, 'Pay inside iframe') && hasRef(obs.snapshot, 'Apply shadow coupon'),
            }),
          });
        }
      }
    }
  });
  return rows;
}

/** The row with the most prompt tokens. */
export const worstOf = (rows: GroupRow[]): GroupRow => rows.reduce((a, b) => (b.parts.total > a.parts.total ? b : a));
