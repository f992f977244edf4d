import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mostRelevant, wordsOf } from '../../src/domain/relevance.js';
import { createLlm } from '../../src/llm/client.js';
import { selectTests, type CatalogueTest } from '../../src/llm/change-review.js';
import { reviewResponder } from '../support/review-script.js';
import { startScriptedLlm, type ScriptedLlm } from '../support/scripted-llm.js';

const checkoutDiff = `diff --git a/src/checkout/ExpressShipping.tsx b/src/checkout/ExpressShipping.tsx
--- a/src/checkout/ExpressShipping.tsx
+++ b/src/checkout/ExpressShipping.tsx
@@ -1,3 +1,4 @@
+  const fee = shippingMethod === 'express' ? 9.5 : 0;
`;

/** A large shop's catalogue, newest first: 399 product and account tests, then the one checkout test, the oldest. */
const catalogue: CatalogueTest[] = [
  ...Array.from({ length: 399 }, (_, i) => ({
    id: `t${i}`,
    name: i % 2 ? `Browse product ${i} in the catalogue` : `Update account address ${i}`,
    goal:
      i % 2
        ? `Open the product page of item ${i} and read its price`
        : `Change the saved address number ${i} on the account page`,
    applicationShortId: 'app_shop',
    applicationName: 'Shop',
  })),
  {
    id: 'checkout',
    name: 'Checkout with express shipping',
    goal: 'Pay for the cart with express shipping',
    applicationShortId: 'app_shop',
    applicationName: 'Shop',
  },
];

describe('the tests a large catalogue shows the model', () => {
  it('splits names as code writes them, dropping short and common words', () => {
    expect([...wordsOf('src/checkout/ExpressShipping.tsx')]).toEqual(['checkout', 'express', 'shipping']);
    expect([...wordsOf('place_order and HTTPServer orders')]).toEqual(['place', 'order', 'http', 'server']);
  });

  it('keeps the tests that share the most words with the change, rare words first; ties keep their order', () => {
    const change = `Express shipping at checkout\n${checkoutDiff}`;
    const shown = mostRelevant(catalogue, (t) => `${t.name} ${t.goal}`, change, 300);
    expect(shown).toHaveLength(300);
    expect(shown[0]!.id).toBe('checkout');
    // Nothing else shares a word: the rest is the catalogue's own order (newest first).
    expect(shown.slice(1, 4).map((t) => t.id)).toEqual(['t0', 't1', 't2']);
    // A word every test has ("shop") weighs little; the rare one ("address") decides.
    const address = mostRelevant(
      catalogue,
      (t) => `${t.name} ${t.goal} Shop`,
      'Shop: address form on the account page',
      10,
    );
    expect(address.every((t) => t.name.startsWith('Update account address'))).toBe(true);
    // Small catalogues are shown whole, as they are.
    expect(mostRelevant(catalogue.slice(0, 5), (t) => t.name, change, 300)).toEqual(catalogue.slice(0, 5));
  });

  describe('in the prompt', () => {
    let llm: ScriptedLlm;
    beforeAll(async () => {
      llm = await startScriptedLlm();
    });
    afterAll(() => llm.stop());

    it('a checkout change shows the model the oldest checkout test of 400, and says why the list is cut', async () => {
      let prompt = '';
      llm.enqueue(
        reviewResponder({
          select: (p) => {
            prompt = p;
            return { existingTestCaseIds: ['checkout'], newTests: [], reasoning: 'Checkout changed.' };
          },
          verdict: () => ({}),
        }),
      );
      const client = createLlm({ apiKey: llm.apiKey, baseURL: llm.baseURL, model: 'scripted' }, { maxRetries: 0 })!;
      const selection = await selectTests(client, {
        change: {
          title: 'Express shipping at checkout',
          description: '',
          context: null,
          diffText: checkoutDiff,
          fileCount: 1,
        },
        catalogue,
        applications: [{ shortId: 'app_shop', name: 'Shop' }],
      });
      expect(selection.existingTestCaseIds).toEqual(['checkout']);
      expect(prompt).toContain('Enabled tests (400; the 300 that share the most words with the change are shown):');
      expect(prompt).toContain('- checkout | Checkout with express shipping | Shop (app_shop)');
      expect(prompt.match(/^- t\d+ \|/gm)).toHaveLength(299);
    });
  });
});
