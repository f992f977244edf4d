// Suggested tests on the real stack (issue 34): Temporal, Postgres, Chromium, the scripted model. The shop's login
// test is burned in and enabled; a discovery from the shop's home, resuming from it, maps the products (where the
// login test adds the mug) and the cart (which no test visits). When it completes, the model words one suggestion
// (the cart), metered for the project; accepting it burns in a test that starts signed in, and once it is enabled
// the coverage counts the cart covered by it.
import { describe, expect, it } from 'vitest';
import { lastPrompt, refOf, tool, type AgentMove } from '../support/agent-script.js';
import type { ChatRequest } from '../support/scripted-llm.js';
import { loginGoal, loginMoves } from '../support/shop-agent-script.js';
import { useShopStack } from '../support/shop-stack.js';
import { waitFor } from '../support/net.js';
import { waitForGeneration } from '../support/worker-context.js';

const cartGoal = 'Open the cart from the products page and check that the cart page shows';
const cartMoves: AgentMove[] = [
  (r) => tool('click', { ref: refOf(r, 'link "Cart (1)"'), description: 'Open the cart' }),
  (r) => tool('assert_visible', { ref: refOf(r, 'heading "Cart"'), description: 'The cart shows' }),
  () => tool('done', { summary: 'The cart shows' }),
];

/** The model's wording: the cart's suggestion in the words above; any other candidate would fail the test below. */
function wordSuggestions(req: ChatRequest) {
  const candidates = [...lastPrompt(req).matchAll(/^(c\d+): start page (\S+)/gm)];
  return tool('write_suggestions', {
    suggestions: candidates.map(([, id, start]) => ({
      id,
      name: start === '/shop/cart' ? 'Open the cart' : `Open ${start}`,
      goal: start === '/shop/cart' ? cartGoal : `Open ${start} and check it shows`,
      expectedResult: 'The page shows',
      reason: 'Shoppers check their cart before paying',
    })),
  });
}

describe('suggested tests after a discovery', () => {
  const shop = useShopStack();

  it('suggests the uncovered cart, and the accepted suggestion burns in and covers it', async () => {
    const call = shop.stack.call;
    const login = await shop.burnIn('Login and add mug', loginGoal, loginMoves);
    expect(login.generationStatus).toBe('COMPLETED');
    expect((await call('PATCH', `/v1/test-cases/${login.id}`, { isEnabled: true })).status).toBe(200);
    const home = await call('POST', `/v1/applications/${shop.appShortId}/environments`, {
      name: 'Home',
      url: `${shop.fixture.url}/shop/`,
    });
    expect(home.status).toBe(201);

    const usageBefore = await reviewCalls();
    shop.llm.enqueue(wordSuggestions);
    const asked = await call('POST', `/v1/applications/${shop.appShortId}/discoveries`, {
      environmentShortId: home.body.shortId,
      resumeFromTestCaseId: login.id,
      budget: { pages: 20, minutes: 5 },
    });
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    const id = asked.body.shortId as string;
    let discovery: any;
    await waitFor(
      async () => {
        discovery = (await call('GET', `/v1/discoveries/${id}`)).body;
        return ['COMPLETED', 'FAILED', 'CANCELLED'].includes(discovery.status);
      },
      120_000,
      `discovery ${id} to end`,
    );
    expect(discovery.status).toBe('COMPLETED');

    // The login test acts on the products page; nothing visits the cart.
    const before = (await call('GET', `/v1/applications/${shop.appShortId}/coverage`)).body;
    expect(before.discovery.shortId).toBe(id);
    expect(before.patterns.map((p: any) => [p.pattern, p.visitedBy.map((u: any) => u.testId)])).toEqual([
      ['/shop/cart', []],
      ['/shop/products', [login.id]],
    ]);
    expect(before.totals.patterns).toMatchObject({ total: 2, covered: 1, uncovered: 1 });

    // Written when it completed, worded by the model in one call, counted for the project.
    const listed = (await call('GET', `/v1/discoveries/${id}/suggestions`)).body.suggestions;
    expect(listed.map((s: any) => [s.rank, s.name, s.goal, s.startUrl, s.covers, s.reason])).toEqual([
      [
        1,
        'Open the cart',
        cartGoal,
        '/shop/cart',
        { patterns: ['/shop/cart'], forms: [] },
        'Shoppers check their cart before paying',
      ],
    ]);
    expect((await reviewCalls()) - usageBefore).toBe(1);

    shop.router.add(cartGoal, cartMoves);
    shop.llm.enqueue(...cartMoves.map(() => shop.router.reply));
    const accepted = await call('POST', `/v1/discoveries/${id}/suggestions/${listed[0].id}/accept`);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    const testCaseId = accepted.body.testCaseId as string;
    const generated = await waitForGeneration(shop.stack, testCaseId);
    expect(generated.failureReason).toBeNull();
    expect(generated.generationStatus).toBe('COMPLETED');
    // It starts where the discovery did: signed in, from the login test.
    expect(generated.resumeFromDependencyProjectTestCaseId).toBe(login.id);
    expect((await call('PATCH', `/v1/test-cases/${testCaseId}`, { isEnabled: true })).status).toBe(200);

    const after = (await call('GET', `/v1/applications/${shop.appShortId}/coverage`)).body;
    const cart = after.patterns.find((p: any) => p.pattern === '/shop/cart');
    // Its assertion is on the cart; its click on the products page, which it starts on.
    expect(cart.visitedBy.map((u: any) => [u.testId, u.steps])).toEqual([[testCaseId, [1]]]);
    expect(cart.assertedBy.map((u: any) => u.testId)).toEqual([testCaseId]);
    expect(after.totals.patterns).toMatchObject({ total: 2, covered: 2, uncovered: 0 });
  }, 300_000);

  async function reviewCalls(): Promise<number> {
    const rows = await shop.stack.db
      .selectFrom('llm_usage')
      .select('id')
      .where('project_id', '=', shop.stack.tenant.projectId)
      .where('purpose', '=', 'review')
      .execute();
    return rows.length;
  }
});
