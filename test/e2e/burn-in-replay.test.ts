import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureApps, shopCredentials, type FixtureApps } from '../support/fixture-apps.js';
import { startScriptedLlm, type ScriptedLlm } from '../support/scripted-llm.js';
import { createRouter, refOf, tool, type AgentMove } from '../support/agent-script.js';
import { startStack, waitForGeneration, type Stack } from '../support/worker-context.js';

const loginGoal = 'Sign in and add the coffee mug to the cart';
const loginMoves: AgentMove[] = [
  (r) => tool('fill', { ref: refOf(r, 'textbox "Email"'), value: '{{SHOP_EMAIL}}', description: 'Type the shopper email' }),
  (r) => tool('fill', { ref: refOf(r, 'textbox "Password"'), value: '{{SHOP_PASSWORD}}', description: 'Type the password' }),
  (r) => tool('click', { ref: refOf(r, 'button "Sign in"'), description: 'Sign in' }),
  (r) => tool('click', { ref: refOf(r, 'button "Add Coffee mug to cart"'), description: 'Add the coffee mug to the cart' }),
  (r) => tool('assert_visible', { ref: refOf(r, 'link "Cart (1)"'), description: 'The cart shows one item' }),
  () => tool('done', { summary: 'Signed in, mug in cart' }),
];

const checkoutGoal = 'Check out the cart with express shipping';
const checkoutMoves: AgentMove[] = [
  (r) => tool('click', { ref: refOf(r, 'link "Cart (1)"'), description: 'Open the cart' }),
  (r) => tool('click', { ref: refOf(r, 'button "Checkout"'), description: 'Go to checkout' }),
  (r) => tool('fill', { ref: refOf(r, 'textbox "Full name"'), value: 'Ada Lovelace', description: 'Enter the name' }),
  (r) => tool('fill', { ref: refOf(r, 'textbox "Address"'), value: '12 Analytical St', description: 'Enter the address' }),
  (r) => tool('select', { ref: refOf(r, 'combobox "Shipping"'), option: 'Express', description: 'Choose express shipping' }),
  (r) => tool('check', { ref: refOf(r, 'checkbox "I accept the terms"'), checked: true, description: 'Accept the terms' }),
  (r) => tool('click', { ref: refOf(r, 'button "Place order"'), description: 'Place the order' }),
  (r) => tool('assert_visible', { ref: refOf(r, 'heading "Order confirmed"'), description: 'The order is confirmed' }),
  () => tool('done', { summary: 'Order placed' }),
];

describe('burn-in and replay on the real stack', () => {
  let fixture: FixtureApps;
  let llm: ScriptedLlm;
  let stack: Stack;
  let appShortId: string;
  let configShortIds: string[];
  let loginId: string;
  const router = createRouter();

  beforeAll(async () => {
    [fixture, llm] = await Promise.all([startFixtureApps(), startScriptedLlm()]);
    stack = await startStack({ llm });
    const app = (await stack.call('POST', '/v1/applications', { name: 'Shop' })).body;
    appShortId = app.shortId;
    await stack.call('POST', `/v1/applications/${appShortId}/environments`, { name: 'Local', url: `${fixture.url}/shop/login` });
    const email = (await stack.call('POST', '/v1/configs', { name: 'SHOP_EMAIL', value: shopCredentials.email })).body;
    const password = (await stack.call('POST', '/v1/configs', { name: 'SHOP_PASSWORD', value: shopCredentials.password, isSecret: true })).body;
    configShortIds = [email.shortId, password.shortId];
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await Promise.all([fixture?.stop(), llm?.stop()]);
  });

  it('creates a test case, burns it in to recorded steps, and replays it without the LLM', async () => {
    router.add(loginGoal, loginMoves);
    llm.enqueue(...loginMoves.map(() => router.reply));
    const created = await stack.call('POST', '/v1/test-cases', {
      name: 'Login and add mug',
      goal: loginGoal,
      expectedResult: 'The cart link shows one item',
      applicationShortId: appShortId,
      configShortIds,
    });
    expect(created.status).toBe(200);
    loginId = created.body.testCase.id;
    const generated = await waitForGeneration(stack, loginId);
    expect(generated.failureReason).toBeNull();
    expect(generated.generationStatus).toBe('COMPLETED');
    const steps = generated.steps.steps;
    expect(steps.map((s: { action: string }) => s.action)).toEqual(['fill', 'fill', 'click', 'click', 'assert_visible']);
    expect(steps[0].locator).toBe("getByRole('textbox', { name: 'Email' })");
    expect(steps[3].locator).toBe("getByRole('button', { name: 'Add Coffee mug to cart' })");
    // The secret is referenced by name in the steps and never reached the LLM.
    expect(steps[1].value).toBe('{{SHOP_PASSWORD}}');
    expect(JSON.stringify(generated)).not.toContain(shopCredentials.password);
    expect(JSON.stringify(llm.requests)).not.toContain(shopCredentials.password);
    // One LLM call per recorded step, plus the final `done`.
    expect(llm.requests.length).toBe(steps.length + 1);

    const callsBefore = llm.requests.length;
    const replay = await stack.activities.executeTest({ projectId: stack.tenant.projectId, testCaseId: loginId, artifactPrefix: 'runs/t1/login' });
    expect(replay.error).toBeUndefined();
    expect(replay.status).toBe('PASSED');
    expect(replay.traceKey).toBeDefined();
    expect((await stack.activityDeps.blobs.stat(replay.traceKey!))?.size).toBeGreaterThan(1000);
    expect(llm.requests.length).toBe(callsBefore);
  });

  it('still passes without any LLM call when the DOM changes but roles and names stay', async () => {
    fixture.setVariant('restyled');
    try {
      const before = llm.requests.length;
      const replay = await stack.activities.executeTest({ projectId: stack.tenant.projectId, testCaseId: loginId, artifactPrefix: 'runs/t2/login', heal: true });
      expect(replay.error).toBeUndefined();
      expect(replay.status).toBe('PASSED');
      expect(replay.healed).toEqual([]);
      expect(llm.requests.length).toBe(before);
    } finally {
      fixture.setVariant('original');
    }
  });

  it('fails at the renamed button without an LLM, and heals with one, storing a new step version', async () => {
    fixture.setVariant('renamed');
    try {
      const failed = await stack.activities.executeTest({ projectId: stack.tenant.projectId, testCaseId: loginId, artifactPrefix: 'runs/t3/login', heal: false });
      expect(failed.status).toBe('FAILED');
      expect(failed.failedStepIndex).toBe(3);
      expect(failed.error).toMatch(/step 4 \(click\).*Add Coffee mug to cart/);
      expect(failed.screenshotKey).toBeDefined();
      expect((await stack.activityDeps.blobs.get(failed.screenshotKey!)).subarray(1, 4).toString()).toBe('PNG');

      const before = await stack.call('GET', `/v1/test-cases/${loginId}`);
      llm.enqueue((r) => tool('select_element', { ref: refOf(r, 'button "Put Coffee mug in basket"'), reason: 'Same purpose, renamed' }));
      const healed = await stack.activities.executeTest({ projectId: stack.tenant.projectId, testCaseId: loginId, artifactPrefix: 'runs/t4/login', heal: true });
      expect(healed.error).toBeUndefined();
      expect(healed.status).toBe('PASSED');
      expect(healed.llmCalls).toBe(1);
      expect(healed.healed).toEqual([
        { index: 3, from: "getByRole('button', { name: 'Add Coffee mug to cart' })", to: "getByRole('button', { name: 'Put Coffee mug in basket' })", via: 'llm' },
      ]);
      const after = await stack.call('GET', `/v1/test-cases/${loginId}`);
      expect(after.body.steps.version).toBe(before.body.steps.version + 1);
      expect(after.body.steps.steps[3].locator).toBe("getByRole('button', { name: 'Put Coffee mug in basket' })");
    } finally {
      fixture.setVariant('original');
    }
  });
});
