import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetKeyring } from '../../src/db/secrets.js';
import { insertRecordedTestCase, todoSteps, applicationIdOf } from '../support/recorded.js';
import { startStack, waitForRun, type Stack } from '../support/worker-context.js';
import { rowIdOf } from '../support/row-ids.js';

// A run on a worker started with the wrong master key: the test ends ERROR at once, saying the stored secrets cannot
// be read and naming PROCTOR_MASTER_KEY; Temporal does not retry the activity.

describe('a run with the wrong master key', () => {
  let stack: Stack;
  const previousKey = process.env.PROCTOR_MASTER_KEY;
  const useKey = (key: string) => {
    process.env.PROCTOR_MASTER_KEY = key;
    resetKeyring();
  };

  beforeAll(async () => {
    useKey(randomBytes(32).toString('base64'));
    stack = await startStack();
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    if (previousKey === undefined) delete process.env.PROCTOR_MASTER_KEY;
    else process.env.PROCTOR_MASTER_KEY = previousKey;
    resetKeyring();
  });

  it('ends the test ERROR with a message naming the key, without retrying', async () => {
    const config = await stack.call('POST', '/v1/configs', {
      name: 'TODO_SECRET',
      value: `s-${randomUUID()}`,
      isSecret: true,
    });
    expect(config.status).toBe(201);
    const app = (await stack.call('POST', '/v1/applications', { name: 'Todo' })).body.shortId;
    const env = (
      await stack.call('POST', `/v1/applications/${app}/environments`, {
        name: 'Local',
        url: 'http://127.0.0.1:9/todo/',
      })
    ).body.shortId;
    const applicationId = await applicationIdOf(stack.db, app);
    const configId = await rowIdOf(stack.db, 'configs', config.body.shortId);
    const testCaseId = await insertRecordedTestCase(stack.db, {
      projectId: stack.tenant.projectId,
      applicationId,
      name: 'Add a todo',
      steps: todoSteps('{{TODO_SECRET}}'),
    });
    await stack.db
      .updateTable('test_cases')
      .set({ config_ids: [configId] })
      .where('id', '=', testCaseId)
      .execute();
    const plan = await stack.call('POST', '/v1/test-plans', {
      name: 'Todo',
      testCaseIds: [testCaseId],
      applications: [{ applicationShortId: app, environmentShortId: env }],
    });
    expect(plan.status, JSON.stringify(plan.body)).toBeLessThan(300);

    useKey(randomBytes(32).toString('base64')); // the worker (and API) now hold another key
    const started = Date.now();
    const run = await waitForRun(
      stack,
      (await stack.call('POST', '/v1/run', { testPlanShortId: plan.body.shortId })).body.run.shortId,
      undefined,
      30_000,
    );
    // Temporal's back-off (1 s, 2 s, 4 s ... up to 10 attempts) would take minutes: the failure was not retried.
    expect(Date.now() - started).toBeLessThan(20_000);
    const [test] = run.runTestCases;
    expect(test).toMatchObject({ status: 'ERROR', failureKind: 'infrastructure', failedStepIndex: null });
    expect(test.error).toMatch(
      /^Stored secrets cannot be read \(data key \S+ is wrapped by master key [0-9a-f]{16}, but PROCTOR_MASTER_KEY is [0-9a-f]{16}: set the key the secrets were stored with\): PROCTOR_MASTER_KEY is missing or is not the master key they were stored with$/,
    );
  }, 60_000);
});
