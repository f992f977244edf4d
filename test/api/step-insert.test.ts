import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Step } from '../../src/domain/steps.js';
import { insertStepInsertion } from '../../src/db/queries/step-insertions.js';
import { saveStepInsertion } from '../../src/services/step-insert.js';
import { createApiContext, databaseKinds, type ApiContext } from '../support/app-context.js';
import { addShopWithLogin, loginSteps } from '../support/recorded.js';
import { countRows } from '../support/row-counts.js';

// POST /v1/test-cases/{id}/steps/insert as a client sees it, over both database kinds (no worker here: an accepted
// insertion stays RUNNING), and the save that ends one: refused when the steps changed meanwhile, never saved twice.

describe.each(databaseKinds)('inserting a described step through the API (%s)', (kind) => {
  let api: ApiContext;
  let testCaseId: string;
  const recordedStep: Step = { action: 'assert_text', value: 'Welcome', description: 'The welcome text shows' };
  beforeAll(async () => {
    api = await createApiContext(kind);
    // Steps are replayed against the application's environment: without one the insertion is refused up front.
    ({ testCaseId } = await addShopWithLogin(api, { name: 'Staging', url: 'http://127.0.0.1:9/shop' }));
  }, 60_000);
  afterAll(async () => api?.close());

  const steps = async () =>
    (await api.call('GET', `/v1/test-cases/${testCaseId}`)).body.steps as { version: number; steps: Step[] };
  const insert = (body: unknown, token?: string) =>
    api.call('POST', `/v1/test-cases/${testCaseId}/steps/insert`, body, token);

  it('accepts one insertion at a time, readable by its project only', async () => {
    const { version } = await steps();
    const accepted = await insert({ at: 1, description: '  Check the welcome text  ' });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({
      status: 'RUNNING',
      at: 1,
      description: 'Check the welcome text',
      basedOnVersion: version,
      version: null,
      failureReason: null,
    });
    const path = `/v1/test-cases/${testCaseId}/steps/insertions/${accepted.body.id}`;
    expect((await api.call('GET', path)).body).toEqual(accepted.body);
    expect((await api.call('GET', path, undefined, api.other.token)).status).toBe(404);
    expect((await api.call('POST', `${path}/cancel`, undefined, api.other.token)).status).toBe(404);
    expect((await insert({ at: 1, description: 'Check the welcome text' }, api.other.token)).status).toBe(404);

    const second = await insert({ at: 0, description: 'Open the cart' });
    expect(second).toMatchObject({
      status: 409,
      body: { message: 'a step is being inserted into this test case already: wait for it to finish' },
    });
    // Ended (as the worker would end it), the next may start.
    await api.db
      .updateTable('step_insertions')
      .set({ status: 'FAILED', failure_reason: 'test' })
      .where('id', '=', accepted.body.id)
      .execute();
    expect((await insert({ at: loginSteps.length, description: 'Open the cart' })).status).toBe(202);
    await api.db
      .updateTable('step_insertions')
      .set({ status: 'FAILED', failure_reason: 'test' })
      .where('test_case_id', '=', testCaseId)
      .execute();
  });

  it('is LLM work: refused with 429 once the daily budget is spent, nothing written', async () => {
    const count = () => countRows(api.db, 'step_insertions');
    const before = await count();
    expect((await api.call('PUT', '/v1/usage/budget', { dailyTokens: 0, dailyUsd: null })).status).toBe(200);
    try {
      const refused = await insert({ at: 0, description: 'Open the cart' });
      expect(refused.status).toBe(429);
      expect(refused.body.message).toEqual(expect.any(String));
      expect(await count()).toBe(before);
    } finally {
      await api.call('PUT', '/v1/usage/budget', { dailyTokens: null, dailyUsd: null });
    }
  });

  it('the save splices the recorded step in at the position; steps saved meanwhile make it FAILED and keep theirs', async () => {
    const before = await steps();
    const ask = async (position: number) => {
      const id = crypto.randomUUID();
      await insertStepInsertion(api.db, {
        id,
        projectId: api.tenant.projectId,
        testCaseId,
        position,
        description: 'Check the welcome text',
        basedOnVersion: (await steps()).version,
        actor: { type: 'system' },
      });
      return id;
    };
    const first = await ask(1);
    expect(await saveStepInsertion(api, { insertionId: first, steps: [recordedStep] })).toEqual({
      status: 'COMPLETED',
      version: before.version + 1,
      insertedSteps: 1,
    });
    expect(await steps()).toEqual({
      version: before.version + 1,
      steps: [before.steps[0], recordedStep, ...before.steps.slice(1)],
    });
    // A retried save answers how it ended and writes nothing more.
    expect(await saveStepInsertion(api, { insertionId: first, steps: [recordedStep] })).toEqual({
      status: 'COMPLETED',
      version: before.version + 1,
      insertedSteps: 1,
    });
    expect((await steps()).version).toBe(before.version + 1);

    const second = await ask(0);
    const edited = (await steps()).steps.slice(1);
    expect(
      (
        await api.call('PUT', `/v1/test-cases/${testCaseId}/steps`, {
          basedOnVersion: before.version + 1,
          steps: edited,
        })
      ).status,
    ).toBe(200);
    const outcome = await saveStepInsertion(api, { insertionId: second, steps: [recordedStep] });
    expect(outcome).toEqual({
      status: 'FAILED',
      failureReason: `the steps changed while the step was being recorded (it was asked of version ${before.version + 1}, now ${before.version + 2}): nothing was saved; insert again`,
    });
    expect(await steps()).toEqual({ version: before.version + 2, steps: edited });
    const row = (await api.call('GET', `/v1/test-cases/${testCaseId}/steps/insertions/${second}`)).body;
    expect(row).toMatchObject({
      status: 'FAILED',
      version: null,
      failureReason: outcome.status === 'FAILED' ? outcome.failureReason : '',
    });
  });

  it('an insertion that ended before its save (cancelled) saves nothing and keeps its reason', async () => {
    const before = await steps();
    const id = crypto.randomUUID();
    await insertStepInsertion(api.db, {
      id,
      projectId: api.tenant.projectId,
      testCaseId,
      position: 0,
      description: 'Check the welcome text',
      basedOnVersion: before.version,
      actor: { type: 'system' },
    });
    await api.db
      .updateTable('step_insertions')
      .set({ status: 'FAILED', failure_reason: 'the insertion was cancelled: nothing was saved' })
      .where('id', '=', id)
      .execute();
    expect(await saveStepInsertion(api, { insertionId: id, steps: [recordedStep] })).toEqual({
      status: 'FAILED',
      failureReason: 'the insertion was cancelled: nothing was saved',
    });
    expect(await steps()).toEqual(before);
  });
});
