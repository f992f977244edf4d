// Suggested tests on the real stack (issue 34): Temporal, Postgres, Chromium, the scripted model; on the fixture shop
// and on the back office under /d/.
// - The shop: its login test is burned in and enabled; a discovery from the shop's home, resuming from it, maps the
//   products (where the login test adds the mug) and the cart (which no test visits). When it completes, the model
//   words one suggestion (the cart), metered for the project; accepting it burns in a test that starts signed in, and
//   once it is enabled the coverage counts the cart covered by it.
// - The back office: no test yet; its discovery maps 31 page patterns and 13 forms (test/support/back-office-truth.ts),
//   each form gets one suggestion; accepting the contact form's burns in a test that sends it, and once it is enabled
//   the coverage counts that form (and the two pages it visits) covered, by the numbers counted by hand below.
import { describe, expect, it } from 'vitest';
import { suggestionBatchSize } from '../../src/llm/discovery-suggest.js';
import { lastPrompt, refOf, tool, type AgentMove } from '../support/agent-script.js';
import { backOfficeForms } from '../support/back-office-truth.js';
import type { ChatRequest, ScriptedReply } from '../support/scripted-llm.js';
import { loginGoal, loginMoves } from '../support/shop-agent-script.js';
import { useShopStack, type ShopStack } from '../support/shop-stack.js';
import { waitFor } from '../support/net.js';
import { waitForGeneration } from '../support/worker-context.js';

/** The suggestion a case accepts, in the model's words, and the scripted burn-in of the test it creates. */
interface Accepted {
  startPage: string;
  name: string;
  goal: string;
  reason: string;
  moves: AgentMove[];
}

interface SuggestionCase {
  name: string;
  /** The application, its enabled tests, and what its discovery is asked with. */
  prepare(shop: ShopStack): Promise<{ app: string; body: Record<string, unknown>; tests: string[] }>;
  accepted: Accepted;
  /** The coverage before any suggestion is accepted, counted by hand. */
  before(coverage: any, tests: string[]): void;
  /** The suggestions listed: what each must be. */
  suggestions(listed: any[], coverage: any): void;
  /** The coverage once the accepted suggestion's test is enabled, counted by hand. */
  after(coverage: any, testCaseId: string, tests: string[]): void;
  /** What the accepted test starts from. */
  resumesFrom(tests: string[]): string | null;
}

const cartGoal = 'Open the cart from the products page and check that the cart page shows';
const contactGoal = 'Open the contact page, write to support about a late invoice and send the message';

const shopCase: SuggestionCase = {
  name: 'the fixture shop',
  async prepare(shop) {
    const call = shop.stack.call;
    const login = await shop.burnIn('Login and add mug', loginGoal, loginMoves);
    expect(login.generationStatus).toBe('COMPLETED');
    expect((await call('PATCH', `/v1/test-cases/${login.id}`, { isEnabled: true })).status).toBe(200);
    const home = await call('POST', `/v1/applications/${shop.appShortId}/environments`, {
      name: 'Home',
      url: `${shop.fixture.url}/shop/`,
    });
    expect(home.status).toBe(201);
    const body = {
      environmentShortId: home.body.shortId,
      resumeFromTestCaseId: login.id,
      budget: { pages: 20, minutes: 5 },
    };
    return { app: shop.appShortId, body, tests: [login.id] };
  },
  accepted: {
    startPage: '/shop/cart',
    name: 'Open the cart',
    goal: cartGoal,
    reason: 'Shoppers check their cart before paying',
    moves: [
      (r) => tool('click', { ref: refOf(r, 'link "Cart (1)"'), description: 'Open the cart' }),
      (r) => tool('assert_visible', { ref: refOf(r, 'heading "Cart"'), description: 'The cart shows' }),
      () => tool('done', { summary: 'The cart shows' }),
    ],
  },
  before(coverage, [login]) {
    // The login test acts on the products page; nothing visits the cart.
    expect(coverage.patterns.map((p: any) => [p.pattern, p.visitedBy.map((u: any) => u.testId)])).toEqual([
      ['/shop/cart', []],
      ['/shop/products', [login]],
    ]);
    expect(coverage.totals.patterns).toMatchObject({ total: 2, covered: 1, uncovered: 1 });
  },
  suggestions(listed) {
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
  },
  after(coverage, testCaseId) {
    const cart = coverage.patterns.find((p: any) => p.pattern === '/shop/cart');
    // Its assertion is on the cart; its click on the products page, which it starts on.
    expect(cart.visitedBy.map((u: any) => [u.testId, u.steps])).toEqual([[testCaseId, [1]]]);
    expect(cart.assertedBy.map((u: any) => u.testId)).toEqual([testCaseId]);
    expect(coverage.totals.patterns).toMatchObject({ total: 2, covered: 2, uncovered: 0 });
  },
  // It starts where the discovery did: signed in, from the login test.
  resumesFrom: ([login]) => login!,
};

const backOfficeCase: SuggestionCase = {
  name: 'the back office',
  async prepare(shop) {
    const call = shop.stack.call;
    const app = (await call('POST', '/v1/applications', { name: 'Back office' })).body.shortId as string;
    const env = await call('POST', `/v1/applications/${app}/environments`, {
      name: 'Local',
      url: `${shop.fixture.url}/d/`,
    });
    expect(env.status).toBe(201);
    return { app, body: { budget: { pages: 60, actions: 200, minutes: 10 } }, tests: [] };
  },
  accepted: {
    startPage: '/d/help/contact',
    name: 'Write to support',
    goal: contactGoal,
    reason: 'Customers who cannot reach support leave',
    moves: [
      () => tool('navigate', { url: '/d/help/contact', description: 'Open the contact page' }),
      (r) => tool('fill', { ref: refOf(r, 'textbox "Subject"'), value: 'Late invoice', description: 'Type a subject' }),
      (r) =>
        tool('fill', {
          ref: refOf(r, 'textbox "Message"'),
          value: 'Invoice a3f9c2e1b7 has not arrived.',
          description: 'Type the message',
        }),
      (r) => tool('click', { ref: refOf(r, 'button "Send message"'), description: 'Send the message' }),
      (r) => tool('assert_visible', { ref: refOf(r, 'heading "Dashboard"'), description: 'Back on the dashboard' }),
      () => tool('done', { summary: 'The message was sent' }),
    ],
  },
  before(coverage) {
    // By hand: 31 page patterns and 13 forms (the header's search once), none covered: no test yet.
    expect(coverage.totals).toEqual({
      patterns: { total: 31, covered: 0, uncovered: 31, actedOn: 0, asserted: 0 },
      forms: { total: 13, covered: 0, uncovered: 13, submitted: 0, asserted: 0 },
    });
  },
  suggestions(listed, coverage) {
    // One suggestion per uncovered form, started on the page the list has it on.
    const forForms = listed.filter((s) => s.covers.forms.length > 0);
    expect(forForms.map((s) => s.covers.forms.length)).toEqual(forForms.map(() => 1));
    expect(forForms.map((s) => s.covers.forms[0]).sort()).toEqual(
      coverage.forms
        .filter((f: any) => !f.covered)
        .map((f: any) => f.id)
        .sort(),
    );
    const actionOf = (formId: string) => formId.slice(formId.lastIndexOf('@') + 1);
    expect(forForms.map((s) => `${s.covers.patterns[0]} ${actionOf(s.covers.forms[0])}`).sort()).toEqual(
      backOfficeForms.map((f) => `${f.page} ${f.form.split(' ')[1]}`).sort(),
    );
    // The others are pages no test visits, each suggested once, none a form suggestion's page.
    const forPages = listed.filter((s) => s.covers.forms.length === 0).map((s) => s.covers.patterns);
    expect(forPages.every((patterns) => patterns.length === 1)).toBe(true);
    expect(new Set(forPages.flat()).size).toBe(forPages.length);
    const formPages = new Set(forForms.map((s) => s.covers.patterns[0]));
    expect(forPages.flat().filter((p) => formPages.has(p))).toEqual([]);
    expect(listed.map((s) => s.rank)).toEqual(listed.map((_, i) => i + 1));
  },
  after(coverage, testCaseId) {
    // By hand: the test opens the contact page (step 0), fills its two fields (1, 2), sends it (3) and lands on the
    // dashboard, where it asserts (4). Two patterns visited, one acted on, one asserted on; the contact form acted
    // on, submitted and checked after; the other 12 forms (the header's search among them) untouched.
    expect(coverage.totals).toEqual({
      patterns: { total: 31, covered: 2, uncovered: 29, actedOn: 1, asserted: 1 },
      forms: { total: 13, covered: 1, uncovered: 12, submitted: 1, asserted: 1 },
    });
    const visited = coverage.patterns.filter((p: any) => p.covered);
    expect(visited.map((p: any) => [p.pattern, p.visitedBy.map((u: any) => [u.testId, u.steps])])).toEqual([
      ['/d/', [[testCaseId, [4]]]],
      ['/d/help/contact', [[testCaseId, [0, 1, 2, 3]]]],
    ]);
    const contact = coverage.forms.find((f: any) => f.covered);
    expect(contact).toMatchObject({ action: '/d/help/contact', patterns: ['/d/help/contact'] });
    expect(contact.submittedBy.map((u: any) => [u.testId, u.steps])).toEqual([[testCaseId, [3]]]);
    expect(contact.assertedBy.map((u: any) => [u.testId, u.steps])).toEqual([[testCaseId, [4]]]);
  },
  resumesFrom: () => null,
};

/** The model's wording: the accepted suggestion's in its words, any other candidate in plain ones. */
const wordSuggestions =
  (accepted: Accepted) =>
  (req: ChatRequest): ScriptedReply => {
    const candidates = [...lastPrompt(req).matchAll(/^(c\d+): start page (\S+)/gm)];
    return tool('write_suggestions', {
      suggestions: candidates.map(([, id, start]) =>
        start === accepted.startPage
          ? { id, name: accepted.name, goal: accepted.goal, expectedResult: 'It shows', reason: accepted.reason }
          : {
              id,
              name: `Open ${start}`,
              goal: `Open ${start} and check it shows`,
              expectedResult: 'The page shows',
              reason: 'Users go there',
            },
      ),
    });
  };

describe.each([shopCase, backOfficeCase])('suggested tests after a discovery of $name', (c) => {
  const shop = useShopStack();

  it('suggests what no test covers, and the accepted suggestion burns in and covers it', async () => {
    const call = shop.stack.call;
    const { app, body, tests } = await c.prepare(shop);
    // Wording requests are answered as such; anything else goes to the burn-in's script. More than the batches need.
    const word = wordSuggestions(c.accepted);
    const reply = (req: ChatRequest) =>
      req.tools?.some((t) => t.type === 'function' && t.function.name === 'write_suggestions')
        ? word(req)
        : shop.router.reply(req);
    shop.llm.enqueue(...Array.from({ length: 3 }, () => reply));

    const usageBefore = await reviewCalls();
    const asked = await call('POST', `/v1/applications/${app}/discoveries`, body);
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    const id = asked.body.shortId as string;
    let discovery: any;
    await waitFor(
      async () => {
        discovery = (await call('GET', `/v1/discoveries/${id}`)).body;
        return ['COMPLETED', 'FAILED', 'CANCELLED'].includes(discovery.status);
      },
      180_000,
      `discovery ${id} to end`,
    );
    expect(discovery.status).toBe('COMPLETED');

    const before = (await call('GET', `/v1/applications/${app}/coverage`)).body;
    expect(before.discovery.shortId).toBe(id);
    c.before(before, tests);

    // Written when it completed, worded by the model a batch at a time, counted for the project.
    const listed = (await call('GET', `/v1/discoveries/${id}/suggestions`)).body.suggestions as any[];
    c.suggestions(listed, before);
    expect((await reviewCalls()) - usageBefore).toBe(Math.ceil(listed.length / suggestionBatchSize));
    const chosen = listed.filter((s) => s.startUrl === c.accepted.startPage);
    expect(chosen.map((s) => s.name)).toEqual([c.accepted.name]);

    shop.router.add(c.accepted.goal, c.accepted.moves);
    shop.llm.enqueue(...c.accepted.moves.map(() => reply));
    const accepted = await call('POST', `/v1/discoveries/${id}/suggestions/${chosen[0].id}/accept`);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    const testCaseId = accepted.body.testCaseId as string;
    const generated = await waitForGeneration(shop.stack, testCaseId);
    expect(generated.failureReason).toBeNull();
    expect(generated.generationStatus).toBe('COMPLETED');
    expect(generated.resumeFromDependencyProjectTestCaseId).toBe(c.resumesFrom(tests));
    expect((await call('PATCH', `/v1/test-cases/${testCaseId}`, { isEnabled: true })).status).toBe(200);

    c.after((await call('GET', `/v1/applications/${app}/coverage`)).body, testCaseId, tests);
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
