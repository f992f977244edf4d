// Crash safety of "insert a step here": a `proctor worker` killed with SIGKILL while the agent records the described
// step (one step recorded, the next under way) loses nothing and saves nothing twice: the next worker replays the
// steps before the position again, records the step from there, and exactly one new version holds it once.
import { beforeAll, describe, expect, it } from 'vitest';
import { createRouter, refOf, tool } from '../support/agent-script.js';
import { addApplication } from '../support/applications.js';
import { useCrashStack } from '../support/crash-stack.js';
import { waitFor } from '../support/net.js';
import { insertRecordedTestCase, loginSteps } from '../support/recorded.js';
import { killWorker, waitWhileRunning } from '../support/worker-process.js';

const described = 'Add the tea pot and check the cart shows two items';

describe('an insertion survives a killed worker', () => {
  const crash = useCrashStack({
    name: 'insert-crash',
    fixture: true,
    env: { PROCTOR_ALLOW_PRIVATE_NETWORKS: 'true' },
  });
  let testCaseId: string;

  beforeAll(async () => {
    const { stack, fixture } = crash;
    const app = await addApplication(stack, 'Shop', { name: 'Local', url: `${fixture.url}/shop/login` });
    testCaseId = await insertRecordedTestCase(stack.db, {
      projectId: stack.tenant.projectId,
      applicationId: app.id,
      name: 'Login and add mug',
      steps: loginSteps,
    });
  }, 60_000);

  it('SIGKILL mid-recording: the next worker records the step again from the replayed state, saved once', async () => {
    const { stack, llm } = crash;
    const router = createRouter();
    router.add(described, [
      // The killed attempt: records the click, then waits (10 s step timeout) for text that never comes.
      (r) => tool('click', { ref: refOf(r, 'button "Add Tea pot to cart"'), description: 'Add the tea pot' }),
      () => tool('wait_for', { text: 'A banner that never comes', description: 'Wait for a banner' }),
      // The retry, from a freshly replayed page.
      (r) => tool('click', { ref: refOf(r, 'button "Add Tea pot to cart"'), description: 'Add the tea pot' }),
      (r) => tool('assert_visible', { ref: refOf(r, 'link "Cart (2)"'), description: 'The cart shows two items' }),
      () => tool('done', { summary: 'ok' }),
    ]);
    llm.enqueue(...Array.from({ length: 5 }, () => router.reply));
    const first = crash.startWorker();

    const asked = await stack.call('POST', `/v1/test-cases/${testCaseId}/steps/insert`, {
      at: loginSteps.length,
      description: described,
    });
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    await waitWhileRunning(
      first,
      async () => llm.requests.length >= 2,
      120_000,
      'the agent to record a step on the first worker and go on',
    );
    await killWorker(first);
    expect(
      (await stack.call('GET', `/v1/test-cases/${testCaseId}/steps/insertions/${asked.body.id}`)).body.status,
    ).toBe('RUNNING');

    crash.startWorker();
    let ended: any;
    await waitFor(
      async () =>
        (ended = (await stack.call('GET', `/v1/test-cases/${testCaseId}/steps/insertions/${asked.body.id}`)).body)
          .status !== 'RUNNING',
      150_000,
      'the insertion to end',
    );
    expect(ended).toMatchObject({ status: 'COMPLETED', basedOnVersion: 1, version: 2, insertedSteps: 2 });
    expect(llm.requests).toHaveLength(5);

    const testCase = (await stack.call('GET', `/v1/test-cases/${testCaseId}`)).body;
    expect(testCase.steps.version).toBe(2);
    expect(testCase.steps.steps.map((s: { description: string }) => s.description)).toEqual([
      ...loginSteps.map((s) => s.description),
      'Add the tea pot',
      'The cart shows two items',
    ]);
    const edits = (await stack.call('GET', '/v1/audit-log?kind=test_case.steps_edited')).body.events;
    expect(edits).toHaveLength(1);

    const replay = await stack.activities.executeTest({
      projectId: stack.tenant.projectId,
      testCaseId,
      artifactPrefix: 'runs/insert-crash/replay',
    });
    expect(replay.error).toBeUndefined();
    expect(replay.status).toBe('PASSED');
  }, 300_000);
});
