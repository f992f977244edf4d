import { writeFileSync } from 'node:fs';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRouter, lastPrompt, refOf, tool } from '../support/agent-script.js';
import { expectAccessible, type DashboardBrowser } from '../support/dashboard.js';
import { shopCredentials, type FixtureApps } from '../support/fixture-apps.js';
import { runPlaywrightSpec } from '../support/playwright-runner.js';
import { waitFor } from '../support/net.js';
import type { ScriptedLlm } from '../support/scripted-llm.js';
import { addShop, loginGoal, loginMoves } from '../support/shop-agent-script.js';
import { burnInOnShop } from '../support/shop-stack.js';
import type { Stack } from '../support/worker-context.js';
import { useModelStack } from '../support/model-stack.js';
import { workflowIds } from '../../workflows/shared.js';

// "Insert a step here" on the real stack: the fixture shop, the Temporal worker, Chromium, Postgres and the scripted
// model. A person asks (in the dashboard, without JavaScript, and over the API) for a described step at a position;
// the worker replays the steps before it (after the resume-from dependency's state) and the agent records the step
// in that page; the new version replays without the model. When the steps before it do not replay, nothing is
// saved and the person reads why. `RECORD_HISTORIES=1` refreshes test/workflows/histories/insertStep.json.

const teaGoal = 'Add the tea pot and open the cart';
const teaMoves = [
  (r: Parameters<typeof refOf>[0]) =>
    tool('click', { ref: refOf(r, 'button "Add Tea pot to cart"'), description: 'Add the tea pot to the cart' }),
  (r: Parameters<typeof refOf>[0]) => tool('click', { ref: refOf(r, 'link "Cart (2)"'), description: 'Open the cart' }),
  (r: Parameters<typeof refOf>[0]) =>
    tool('assert_visible', { ref: refOf(r, 'heading "Cart"'), description: 'The cart page is shown' }),
  () => tool('done', { summary: 'Tea pot in the cart' }),
];
const described = 'Check that the cart lists one tea pot';

describe('insert a step described in words', () => {
  let fixture: FixtureApps;
  let llm: ScriptedLlm;
  let stack: Stack;
  let dash: DashboardBrowser;
  let noScript: Page;
  const router = createRouter();
  let loginId: string;
  let teaId: string;

  const api = (method: string, path: string, body?: unknown) => stack.call(method, path, body);
  const burnIn = (name: string, goal: string, moves: typeof teaMoves, extra?: Record<string, unknown>) =>
    burnInOnShop({ stack, llm, router, ...shop }, name, goal, moves, extra);
  const insertion = (testCaseId: string, id: string) =>
    api('GET', `/v1/test-cases/${testCaseId}/steps/insertions/${id}`);
  const finished = async (testCaseId: string, id: string) => {
    let last: any;
    await waitFor(
      async () => (last = (await insertion(testCaseId, id)).body).status !== 'RUNNING',
      60_000,
      `insertion ${id} to finish`,
    );
    return last;
  };
  let shop: { appShortId: string; configShortIds: string[] };

  const rig = useModelStack({ dashboard: true });
  beforeAll(async () => {
    ({ fixture, llm, stack, dash } = rig);
    shop = await addShop(stack, `${fixture.url}/shop/login`);
    await dash.signIn(stack.tenant.token);
    // The same session in a browser that runs no script: the form and the progress page must work without it.
    noScript = await (
      await dash.browser.newContext({ javaScriptEnabled: false, storageState: await dash.context.storageState() })
    ).newPage();
  }, 180_000);

  it('burns in a signed-in shopper and a three-step test that resumes from it', async () => {
    loginId = (await burnIn('Login and add mug', loginGoal, loginMoves)).id;
    const tea = await burnIn('Tea pot in the cart', teaGoal, teaMoves, {
      resumeFromDependencyProjectTestCaseId: loginId,
    });
    teaId = tea.id;
    expect(tea.steps.version).toBe(1);
    expect(tea.steps.steps.map((s: { description: string }) => s.description)).toEqual([
      'Add the tea pot to the cart',
      'Open the cart',
      'The cart page is shown',
    ]);
  }, 120_000);

  it('the dashboard form, without JavaScript: the agent records the described step at 2 and the page shows the new version', async () => {
    const firstLook: string[] = [];
    router.add(described, [
      (r) => {
        firstLook.push(lastPrompt(r));
        return tool('assert_text', { text: 'Tea pot — 1', description: 'The cart lists one tea pot' });
      },
      () => tool('done', { summary: 'Checked' }),
    ]);
    llm.enqueue(router.reply, router.reply);
    const requestsBefore = llm.requests.length;
    const usageBefore = (await api('GET', `/v1/test-cases/${teaId}`)).body.usage;

    await noScript.goto(`${dash.url}/test-cases/${teaId}/steps`);
    // "Insert a step here" between the editor's steps opens the form at that position.
    await noScript.getByRole('link', { name: 'Insert a step after step 2' }).click();
    await expect(noScript.getByLabel('Where').inputValue()).resolves.toBe('2');
    expect(await noScript.getByLabel('Where').locator('option:checked').innerText()).toBe(
      'Before step 3: The cart page is shown',
    );
    await noScript.getByLabel('The step, in words').fill(described);
    await noScript.getByRole('button', { name: 'Record and insert the step' }).click();
    await noScript.waitForURL(/\/steps\/insertions\/[0-9a-f-]{36}$/);
    const progressPath = new URL(noScript.url()).pathname;
    const insertionId = progressPath.split('/').pop()!;
    // The page reloads itself (an HTTP Refresh header) until the step is saved.
    await noScript.getByText('Saved as version 2: 1 step(s) recorded after step 2').waitFor({ timeout: 60_000 });
    expect(
      await noScript.getByRole('list', { name: 'Steps of version 2' }).getByRole('listitem').allInnerTexts(),
    ).toEqual([
      'click Add the tea pot to the cart',
      'click Open the cart',
      'New: assert_text The cart lists one tea pot',
      'assert_visible The cart page is shown',
    ]);

    // The agent started where the steps before it left the page: the cart, holding the dependency's mug and the tea pot.
    expect(firstLook[0]).toContain(`Goal: ${described}`);
    expect(firstLook[0]).toMatch(/Page: Cart · Shop/);
    expect(firstLook[0]).toContain('Coffee mug — 1');
    expect(firstLook[0]).toContain('Tea pot — 1');
    expect(llm.requests.length - requestsBefore).toBe(2);

    const done = (await insertion(teaId, insertionId)).body;
    expect(done).toMatchObject({
      status: 'COMPLETED',
      at: 2,
      basedOnVersion: 1,
      version: 2,
      insertedSteps: 1,
      failureReason: null,
      description: described,
    });
    const testCase = (await api('GET', `/v1/test-cases/${teaId}`)).body;
    expect(testCase.steps.version).toBe(2);
    // LLM work, counted as the test's burn-in usage (what the daily budget is checked against).
    expect(testCase.usage.calls - usageBefore.calls).toBe(2);
    expect(testCase.usage.promptTokens).toBeGreaterThan(usageBefore.promptTokens);
    expect(testCase.steps.steps.map((s: { action: string; value?: string }) => [s.action, s.value ?? null])).toEqual([
      ['click', null],
      ['click', null],
      ['assert_text', 'Tea pot — 1'],
      ['assert_visible', null],
    ]);
    // Saved through the editor's save: audited as the person's steps edit, saying what was inserted.
    const audit = (await api('GET', '/v1/audit-log?kind=test_case.steps_edited')).body.events;
    expect(audit[0]).toMatchObject({
      actor: { type: 'session' },
      subject: teaId,
      details: { version: 2, basedOnVersion: 1, steps: 4, inserted: { at: 2, steps: 1, description: described } },
    });

    // The progress page is small and accessible (in the scripted browser too).
    await dash.page.goto(`${dash.url}${progressPath}`);
    await expectAccessible(dash.page);
    const size = await dash.transferredBytes(progressPath);
    expect(size.total).toBeLessThan(50 * 1024);
    for (const path of [`/test-cases/${teaId}/steps`, `/test-cases/${teaId}/steps/insert?at=1`]) {
      await dash.page.goto(`${dash.url}${path}`);
      await expectAccessible(dash.page);
      expect((await dash.transferredBytes(path)).total).toBeLessThan(50 * 1024);
    }

    if (process.env.RECORD_HISTORIES) {
      const history = await (
        await stack.temporal.get()
      ).workflow
        .getHandle(workflowIds.insertStep(insertionId))
        .fetchHistory();
      writeFileSync('test/workflows/histories/insertStep.json', historyToJSON(history));
    }
  }, 120_000);

  it('the new version replays PASSED from the dependency state, without the model', async () => {
    const requestsBefore = llm.requests.length;
    const projectId = stack.tenant.projectId;
    const stateKey = 'runs/insert/state/login.json';
    const login = await stack.activities.executeTest({
      projectId,
      testCaseId: loginId,
      artifactPrefix: 'runs/insert/login',
      captureStateKey: stateKey,
    });
    expect(login.status).toBe('PASSED');
    const tea = await stack.activities.executeTest({
      projectId,
      testCaseId: teaId,
      artifactPrefix: 'runs/insert/tea',
      stateKey,
    });
    expect(tea.error).toBeUndefined();
    expect(tea.status).toBe('PASSED');
    expect(llm.requests.length).toBe(requestsBefore);
  }, 120_000);

  it('the new version exports as a Playwright spec that runs green, the inserted check included', async () => {
    const res = await stack.app.request(`/v1/test-cases/${teaId}/playwright`, {
      headers: { authorization: `Bearer ${stack.tenant.token}` },
    });
    expect(res.status).toBe(200);
    const spec = await res.text();
    expect(spec).toContain('Tea pot — 1');
    const result = await runPlaywrightSpec(spec, { SHOP_PASSWORD: shopCredentials.password });
    expect(result.output).toMatch(/1 passed/);
    expect(result.code).toBe(0);
  }, 120_000);

  it('the steps before the position do not replay: no new version, no model call, and the person reads why', async () => {
    const requestsBefore = llm.requests.length;
    fixture.setVariant('outOfStock');
    try {
      // Step 4 adds the mug: out of stock, the cart stays empty, so step 5 (the cart shows one item) fails.
      const asked = await api('POST', `/v1/test-cases/${loginId}/steps/insert`, {
        at: 5,
        description: 'Open the cart',
      });
      expect(asked.status, JSON.stringify(asked.body)).toBe(202);
      expect(asked.body).toMatchObject({ status: 'RUNNING', at: 5, basedOnVersion: 1, version: null });
      const ended = await finished(loginId, asked.body.id);
      expect(ended.status).toBe('FAILED');
      expect(ended.failureReason).toMatch(
        /^the steps before position 6 did not replay, so nothing was recorded: step 5 \(assert_visible\)/,
      );
      expect(ended.version).toBeNull();

      const testCase = (await api('GET', `/v1/test-cases/${loginId}`)).body;
      expect(testCase.steps.version).toBe(1);
      expect(testCase.steps.steps).toHaveLength(5);
      expect(llm.requests.length).toBe(requestsBefore);

      await noScript.goto(`${dash.url}/test-cases/${loginId}/steps/insertions/${asked.body.id}`);
      await expect(noScript.getByRole('alert').innerText()).resolves.toMatch(
        /^Nothing was saved: the steps before position 6 did not replay/,
      );
    } finally {
      fixture.setVariant('original');
    }
  }, 120_000);

  it('the agent cannot do the described step: FAILED with its reason, the steps untouched', async () => {
    const impossible = 'Apply the discount code SAVE10';
    router.add(impossible, [() => tool('fail', { reason: 'the page has no discount code field' })]);
    llm.enqueue(router.reply);
    const asked = await api('POST', `/v1/test-cases/${teaId}/steps/insert`, { at: 1, description: impossible });
    expect(asked.status).toBe(202);
    const ended = await finished(teaId, asked.body.id);
    expect(ended).toMatchObject({
      status: 'FAILED',
      version: null,
      failureReason: 'the agent could not reach the goal: the page has no discount code field',
    });
    expect((await api('GET', `/v1/test-cases/${teaId}`)).body.steps.version).toBe(2);
  }, 60_000);

  it("stopped while it records (the page's Stop, without JavaScript): FAILED, nothing saved, a second stop refused", async () => {
    const slow = 'Wait until the tea pot is on offer';
    router.add(
      slow,
      Array.from(
        { length: 10 },
        () => () => tool('wait_for', { text: 'Tea pot on offer', description: 'Wait for the offer' }),
      ),
    );
    llm.enqueue(...Array.from({ length: 10 }, () => router.reply));
    const asked = await api('POST', `/v1/test-cases/${teaId}/steps/insert`, { at: 0, description: slow });
    expect(asked.status).toBe(202);
    await waitFor(async () => router.order.includes(slow), 60_000, 'the agent to start recording');

    const page = `${dash.url}/test-cases/${teaId}/steps/insertions/${asked.body.id}`;
    await noScript.goto(page);
    await noScript.getByRole('button', { name: 'Stop recording' }).click();
    await noScript
      .getByRole('alert')
      .filter({ hasText: 'Nothing was saved: the insertion was cancelled: nothing was saved' })
      .waitFor({ timeout: 30_000 });
    expect(await noScript.getByRole('button', { name: 'Stop recording' }).count()).toBe(0);
    expect((await insertion(teaId, asked.body.id)).body).toMatchObject({ status: 'FAILED', version: null });
    expect((await api('GET', `/v1/test-cases/${teaId}`)).body.steps.version).toBe(2);
    const again = await api('POST', `/v1/test-cases/${teaId}/steps/insertions/${asked.body.id}/cancel`);
    expect(again).toMatchObject({ status: 409, body: { message: 'the insertion already ended (FAILED)' } });
  }, 90_000);

  it('refuses bad requests with a 4xx and a message, starting nothing', async () => {
    const other = '00000000-0000-4000-8000-000000000000';
    const cases: [string, unknown, number, RegExp][] = [
      [
        teaId,
        { at: 5, description: 'Open the cart' },
        400,
        /^at: a position from 0 \(before the first step\) to 4 \(after the last\), not 5$/,
      ],
      [teaId, { at: -1, description: 'Open the cart' }, 400, /at/],
      [teaId, { at: 1, description: '   ' }, 400, /^description: say in words what the step should do$/],
      [teaId, { at: 1 }, 400, /description/],
      [other, { at: 0, description: 'Open the cart' }, 404, /Test case not found/],
      ['not-a-uuid', { at: 0, description: 'Open the cart' }, 400, /testCaseId/],
    ];
    for (const [id, body, status, message] of cases) {
      const res = await api('POST', `/v1/test-cases/${id}/steps/insert`, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.message).toMatch(message);
    }
    expect((await insertion(teaId, other)).status).toBe(404);

    // The dashboard refuses the same way and keeps what was typed.
    await noScript.goto(`${dash.url}/test-cases/${teaId}/steps`);
    await noScript.getByLabel('The step, in words').fill('   ');
    await noScript.getByRole('button', { name: 'Record and insert the step' }).click();
    await expect(noScript.getByRole('alert').innerText()).resolves.toBe(
      'Not started: description: say in words what the step should do',
    );
    expect((await api('GET', `/v1/test-cases/${teaId}`)).body.steps.version).toBe(2);
  }, 60_000);
});
