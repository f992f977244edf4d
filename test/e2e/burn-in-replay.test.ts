import { writeFileSync } from 'node:fs';
import { strFromU8, unzipSync } from 'fflate';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { describe, expect, it } from 'vitest';
import type { BrowserState } from '../../src/domain/steps.js';
import {
  expectBatchSpecPassed,
  exportedSpec,
  runPlaywrightSpecs,
  type SpecBatch,
} from '../support/playwright-runner.js';
import { shopCredentials } from '../support/fixture-apps.js';
import { refOf, tool } from '../support/agent-script.js';
import { checkoutGoal, checkoutMoves, loginGoal, loginMoves } from '../support/shop-agent-script.js';
import { useShopStack } from '../support/shop-stack.js';
import { waitForGeneration } from '../support/worker-context.js';
import { dependencyRecordedSignal } from '../../workflows/burn-in-contract.js';
import { workflowIds } from '../../workflows/shared.js';

/** `RECORD_HISTORIES=1` also refreshes the burnIn history that test/workflows/replay.test.ts replays. */
describe('burn-in and replay on the real stack', () => {
  let loginId: string;
  let checkoutId: string;
  const shop = useShopStack();

  it('creates a test case, burns it in to recorded steps, and replays it without the LLM', async () => {
    const generated = await shop.burnIn('Login and add mug', loginGoal, loginMoves, {
      expectedResult: 'The cart link shows one item',
    });
    loginId = generated.id;
    expect(generated.generationStatus).toBe('COMPLETED');
    const steps = generated.steps.steps;
    expect(steps.map((s: { action: string }) => s.action)).toEqual([
      'fill',
      'fill',
      'click',
      'click',
      'assert_visible',
    ]);
    expect(steps[0].locator).toBe("getByRole('textbox', { name: 'Email' })");
    expect(steps[3].locator).toBe("getByRole('button', { name: 'Add Coffee mug to cart' })");
    // The secret is referenced by name in the steps and never reached the LLM.
    expect(steps[1].value).toBe('{{SHOP_PASSWORD}}');
    expect(JSON.stringify(generated)).not.toContain(shopCredentials.password);
    expect(JSON.stringify(shop.llm.requests)).not.toContain(shopCredentials.password);
    // One LLM call per recorded step, plus the final `done`.
    expect(shop.llm.requests.length).toBe(steps.length + 1);

    const callsBefore = shop.llm.requests.length;
    const replay = await shop.stack.activities.executeTest({
      projectId: shop.stack.tenant.projectId,
      testCaseId: loginId,
      artifactPrefix: 'runs/t1/login',
    });
    expect(replay.error).toBeUndefined();
    expect(replay.status).toBe('PASSED');
    expect(replay.traceKey).toBeDefined();
    expect((await shop.stack.activityDeps.blobs.stat(replay.traceKey!))?.size).toBeGreaterThan(1000);
    // The trace recorded the typed password, and holds it masked: no entry of the archive has it in any spelling.
    const trace = unzipSync(await shop.stack.activityDeps.blobs.get(replay.traceKey!));
    const traceText = Object.entries(trace)
      .filter(([name]) => !/\.(jpe?g|png)$/.test(name))
      .map(([, bytes]) => strFromU8(bytes))
      .join('\n');
    expect(traceText).toContain('***');
    expect(traceText).not.toContain(shopCredentials.password);
    expect(traceText).not.toContain(encodeURIComponent(shopCredentials.password));
    expect(shop.llm.requests.length).toBe(callsBefore);
  });

  it('still passes without any LLM call when the DOM changes but roles and names stay', async () => {
    const replay = await shop.replay(loginId, { variant: 'restyled', heal: true });
    expect(replay.error).toBeUndefined();
    expect(replay.status).toBe('PASSED');
    expect(replay.healed).toEqual([]);
    expect(replay.requests).toEqual([]);
  });

  it('finds the renamed button through its recorded id fallback without an LLM, and says so', async () => {
    const replay = await shop.replay(loginId, { variant: 'renamed', heal: false });
    expect(replay.error).toBeUndefined();
    expect(replay.status).toBe('PASSED');
    expect(replay.healed).toEqual([
      {
        index: 3,
        from: "getByRole('button', { name: 'Add Coffee mug to cart' })",
        to: "locator('#add-mug')",
        via: 'fallback',
      },
    ]);
    expect(replay.requests).toEqual([]);
  });

  it('resume-from: the dependent starts signed in from its dependency, sessionStorage included', async () => {
    shop.router.add(checkoutGoal, checkoutMoves);
    const firstObservation: string[] = [];
    shop.llm.enqueue(
      (r) => {
        firstObservation.push(String(r.messages.at(-1)?.content));
        return shop.router.reply(r);
      },
      ...checkoutMoves.slice(1).map(() => shop.router.reply),
    );
    const created = await shop.stack.call('POST', '/v1/test-cases', {
      name: 'Checkout',
      goal: checkoutGoal,
      expectedResult: 'The order is confirmed',
      applicationShortId: shop.appShortId,
      configShortIds: shop.configShortIds,
      resumeFromDependencyProjectTestCaseId: loginId,
    });
    checkoutId = created.body.testCase.id;
    const generated = await waitForGeneration(shop.stack, created.body.testCase.id);
    expect(generated.failureReason).toBeNull();
    expect(generated.generationStatus).toBe('COMPLETED');
    // The agent's first look is the products page of a signed-in shopper, not the login form.
    expect(firstObservation[0]).toContain('Signed in as shopper@example.com');
    expect(firstObservation[0]).not.toContain('textbox "Password"');

    // Replay as a plan run would: the dependency stores its browser state in the blob store, the dependent reads it
    // by key (the state never travels through workflow inputs or results).
    const blobs = shop.stack.activityDeps.blobs;
    const stateKey = 'runs/t5/state/login.json';
    const dependency = await shop.stack.activities.executeTest({
      projectId: shop.stack.tenant.projectId,
      testCaseId: loginId,
      artifactPrefix: 'runs/t5/login',
      captureStateKey: stateKey,
    });
    expect(dependency).toMatchObject({ status: 'PASSED', stateKey });
    const state = JSON.parse((await blobs.get(stateKey)).toString('utf8')) as BrowserState;
    const tabToken = state.origins.flatMap((o) => o.sessionStorage).find((i) => i.name === 'shop_tab_token');
    expect(tabToken?.value).toMatch(/^tab-/);
    const dependent = await shop.stack.activities.executeTest({
      projectId: shop.stack.tenant.projectId,
      testCaseId: created.body.testCase.id,
      artifactPrefix: 'runs/t5/checkout',
      stateKey,
    });
    expect(dependent.error).toBeUndefined();
    expect(dependent.status).toBe('PASSED');

    // Without the sessionStorage part of the state, checkout refuses: proof that it was carried.
    const withoutSession = { ...state, origins: state.origins.map((o) => ({ ...o, sessionStorage: [] })) };
    await blobs.put(
      'runs/t5/state/without-session.json',
      Buffer.from(JSON.stringify(withoutSession)),
      'application/json',
    );
    const refused = await shop.stack.activities.executeTest({
      projectId: shop.stack.tenant.projectId,
      testCaseId: created.body.testCase.id,
      artifactPrefix: 'runs/t5/refused',
      stateKey: 'runs/t5/state/without-session.json',
    });
    expect(refused.status).toBe('FAILED');
  });

  it('wait-for: a dependent burns in only after its dependency has recorded steps', async () => {
    const first = 'Add the tea pot to the cart';
    const second = 'Open the cart page';
    shop.router.order.length = 0;
    shop.router.add(first, [
      (r) => tool('fill', { ref: refOf(r, 'textbox "Email"'), value: '{{SHOP_EMAIL}}', description: 'Type the email' }),
      (r) =>
        tool('fill', {
          ref: refOf(r, 'textbox "Password"'),
          value: '{{SHOP_PASSWORD}}',
          description: 'Type the password',
        }),
      (r) => tool('click', { ref: refOf(r, 'button "Sign in"'), description: 'Sign in' }),
      (r) => tool('click', { ref: refOf(r, 'button "Add Tea pot to cart"'), description: 'Add the tea pot' }),
      () => tool('assert_text', { text: 'Added Tea pot to cart', description: 'Confirmation shown' }),
      () => tool('done', { summary: 'ok' }),
    ]);
    shop.router.add(second, [
      () => tool('navigate', { url: `${shop.fixture.url}/shop/login`, description: 'Open the login page' }),
      (r) => tool('assert_visible', { ref: refOf(r, 'button "Sign in"'), description: 'Login form shown' }),
      () => tool('done', { summary: 'ok' }),
    ]);
    shop.llm.enqueue(...Array.from({ length: 9 }, () => shop.router.reply));
    const a = await shop.stack.call('POST', '/v1/test-cases', {
      name: 'Tea pot',
      goal: first,
      expectedResult: 'Confirmation',
      applicationShortId: shop.appShortId,
      configShortIds: shop.configShortIds,
    });
    const b = await shop.stack.call('POST', '/v1/test-cases', {
      name: 'Cart page',
      goal: second,
      expectedResult: 'Login form',
      applicationShortId: shop.appShortId,
      waitForDependenciesProjectTestCaseIds: [a.body.testCase.id],
    });
    const [ra, rb] = await Promise.all([
      waitForGeneration(shop.stack, a.body.testCase.id),
      waitForGeneration(shop.stack, b.body.testCase.id),
    ]);
    expect([ra.generationStatus, rb.generationStatus]).toEqual(['COMPLETED', 'COMPLETED']);
    expect(rb.steps.steps[0]).toMatchObject({ action: 'navigate', value: '/shop/login' });
    const lastOfFirst = shop.router.order.lastIndexOf(first);
    const firstOfSecond = shop.router.order.indexOf(second);
    expect(lastOfFirst).toBeLessThan(firstOfSecond);

    // The dependent learnt of its dependency by signal (sent by the dependency's burn-in), not by polling.
    const history = await (
      await shop.stack.temporal.get()
    ).workflow
      .getHandle(workflowIds.burnIn(b.body.testCase.id))
      .fetchHistory();
    const signals = (history.events ?? []).flatMap((e) =>
      e.workflowExecutionSignaledEventAttributes ? [e.workflowExecutionSignaledEventAttributes.signalName] : [],
    );
    expect(signals).toEqual([dependencyRecordedSignal.name]);
    if (process.env.RECORD_HISTORIES)
      writeFileSync('test/workflows/histories/burnIn-waits-for-dependency.json', historyToJSON(history));
  });

  // Both exported specs run in one @playwright/test runner (each its own file and verdict), started by the first of
  // the two tests: one runner start instead of two (a start was 17 to 39 s under a full run's load). The resume-from
  // spec is the runner's first file, so it passes before the other spec has run.
  let specs: Promise<{ login: string; checkout: string }> | undefined;
  const exportedSpecs = () =>
    (specs ??= Promise.all([exportedSpec(shop.stack, loginId), exportedSpec(shop.stack, checkoutId)]).then(
      ([login, checkout]) => ({ login, checkout }),
    ));
  let specsRun: Promise<SpecBatch> | undefined;
  const exportedSpecsRun = () =>
    (specsRun ??= exportedSpecs().then((both) =>
      runPlaywrightSpecs({ checkout: both.checkout, login: both.login }, { SHOP_PASSWORD: shopCredentials.password }),
    ));

  it('exports a Playwright spec that runs green with @playwright/test', async () => {
    const spec = (await exportedSpecs()).login;
    expect(spec).toContain("import { test, expect } from '@playwright/test';");
    expect(spec).not.toContain(shopCredentials.password);
    expect(spec).toContain('process.env.SHOP_PASSWORD');
    expectBatchSpecPassed(await exportedSpecsRun(), 'login');
  }, 120_000);

  it('exports a resume-from test with its dependency chain, and the spec passes on its own', async () => {
    const spec = (await exportedSpecs()).checkout;
    expect(spec).toContain("await test.step('Resume-from dependency: Login and add mug', async () => {");
    expect(spec).toContain("await test.step('Checkout', async () => {");
    expect(spec).not.toContain(shopCredentials.password);
    expectBatchSpecPassed(await exportedSpecsRun(), 'checkout');
  }, 120_000);
});
