import { describe, expect, it } from 'vitest';
import { refOf, tool } from '../support/agent-script.js';
import { waitFor } from '../support/net.js';
import { useShopStack } from '../support/shop-stack.js';
import { waitForGeneration } from '../support/worker-context.js';

// Stopping a burn-in over REST (POST /v1/test-cases/{id}/burn-in/cancel), on the real stack: the agent has recorded
// a step and is busy with the next ones when it is stopped. The test case must end in a state a person can read
// (FAILED, "the burn-in was cancelled"), never stay GENERATING, and what was recorded half-way must not be saved
// or become runnable.

const slowGoal = 'Sign in and wait for the welcome banner';

describe('stopping a running burn-in through the API', () => {
  const shop = useShopStack();

  it('ends FAILED with a reason, keeps no half-recorded steps, cannot be enabled, and refuses a second stop', async () => {
    // One step recorded, then checks that never pass (each waits the step timeout): the agent is mid-work.
    const waits = Array.from(
      { length: 20 },
      () => () =>
        tool('wait_for', { text: 'Welcome back, banner that never comes', description: 'Wait for the banner' }),
    );
    shop.router.add(slowGoal, [
      (r) => tool('fill', { ref: refOf(r, 'textbox "Email"'), value: '{{SHOP_EMAIL}}', description: 'Type the email' }),
      ...waits,
    ]);
    shop.llm.enqueue(...Array.from({ length: 21 }, () => shop.router.reply));
    const created = await shop.stack.call('POST', '/v1/test-cases', {
      name: 'Banner',
      goal: slowGoal,
      expectedResult: 'The banner shows',
      applicationShortId: shop.appShortId,
      configShortIds: shop.configShortIds,
    });
    expect(created.status).toBe(200);
    const id = created.body.testCase.id as string;
    // The fill was performed and the agent asked for its next move: something is recorded, the burn-in still runs.
    await waitFor(
      async () => shop.router.order.filter((g) => g === slowGoal).length >= 2,
      60_000,
      'the agent to record a step and go on',
    );
    expect((await shop.stack.call('GET', `/v1/test-cases/${id}`)).body.generationStatus).toBe('GENERATING');

    // While it burns in, no step can be inserted (there are no steps to insert into).
    const insert = await shop.stack.call('POST', `/v1/test-cases/${id}/steps/insert`, {
      at: 0,
      description: 'Open the cart',
    });
    expect(insert.status).toBe(409);
    expect(insert.body.message).toBe('the test case is still burning in: wait for its steps, then insert');

    const stop = await shop.stack.call('POST', `/v1/test-cases/${id}/burn-in/cancel`);
    expect(stop.status).toBe(202);
    expect(stop.body).toEqual({ success: true, status: 'CANCELLING' });

    const ended = await waitForGeneration(shop.stack, id, 30_000);
    expect(ended.generationStatus).toBe('FAILED');
    expect(ended.failureReason).toBe('the burn-in was cancelled');
    expect(ended.steps).toBeNull();
    expect(ended.isEnabled).toBe(false);
    const enable = await shop.stack.call('PATCH', `/v1/test-cases/${id}`, { isEnabled: true });
    expect(enable.status).toBe(409);
    expect(enable.body.message).toMatch(/^isEnabled: test case has no recorded steps yet \(generation FAILED\)/);
    // The agent got no more moves once it was stopped (a few more seconds would have asked for them).
    const asked = shop.router.order.filter((g) => g === slowGoal).length;
    await new Promise((r) => setTimeout(r, 4_000));
    expect(shop.router.order.filter((g) => g === slowGoal).length).toBe(asked);

    const again = await shop.stack.call('POST', `/v1/test-cases/${id}/burn-in/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('the burn-in already ended (FAILED)');
  }, 120_000);

  it('a GENERATING test case whose burn-in workflow is gone is marked FAILED at once, not left generating', async () => {
    const created = await shop.stack.call('POST', '/v1/test-cases', {
      name: 'Orphan',
      goal: 'Never recorded',
      applicationShortId: shop.appShortId,
    });
    const id = created.body.testCase.id as string;
    const client = await shop.stack.temporal.get();
    // As if the start had been lost: the workflow ends without writing anything.
    await client.workflow.getHandle(`burn-in:${id}`).terminate('simulating a lost burn-in');
    expect((await shop.stack.call('GET', `/v1/test-cases/${id}`)).body.generationStatus).toBe('GENERATING');

    const stop = await shop.stack.call('POST', `/v1/test-cases/${id}/burn-in/cancel`);
    expect(stop.status).toBe(202);
    expect(stop.body).toEqual({ success: true, status: 'FAILED' });
    const after = (await shop.stack.call('GET', `/v1/test-cases/${id}`)).body;
    expect(after.generationStatus).toBe('FAILED');
    expect(after.failureReason).toBe('the burn-in was cancelled (its workflow was no longer running)');
  }, 60_000);

  it('refuses unknown and malformed ids', async () => {
    expect(
      (await shop.stack.call('POST', '/v1/test-cases/00000000-0000-4000-8000-000000000000/burn-in/cancel')).status,
    ).toBe(404);
    const malformed = await shop.stack.call('POST', '/v1/test-cases/nope/burn-in/cancel');
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toMatch(/testCaseId/);
  });
});
