import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowIds } from '../../workflows/shared.js';
import { createApiContext, databaseKinds, startedWorkflowIds, type ApiContext } from '../support/app-context.js';
import { countRows } from '../support/row-counts.js';
import { waitFor } from '../support/net.js';
import { insertRecordedTestCase, loginSteps, applicationIdOf } from '../support/recorded.js';

// Every reason an insertion is known to fail before it starts is refused at once with a 4xx {message}, and
// changes nothing: no step_insertions row, no insertStep workflow. Before this, a mobile test (and a web test
// without an environment URL) was accepted and failed in the worker like a browser burn-in. The matrix covers
// each reason; the last case is accepted, which shows the workflow check sees a started insertion. Requests at the
// same moment are refused too (a unique index behind the check), rather than accepted to fail while saving.

interface Case {
  name: string;
  /** Makes the test case in that state; returns its id. */
  make: () => Promise<string>;
  body?: Record<string, unknown>;
  status: number;
  message: RegExp;
}

describe.each(databaseKinds)('step insertions refused up front (%s)', (kind) => {
  let api: ApiContext;
  let web: string;
  let bare: string;
  let android: string;
  let ios: string;

  beforeAll(async () => {
    api = await createApiContext(kind);
    const app = async (name: string, appKind: string) => {
      const shortId = (await api.call('POST', '/v1/applications', { name, kind: appKind })).body.shortId as string;
      return await applicationIdOf(api.db, shortId);
    };
    web = await app('Shop', 'web');
    const webShortId = (
      await api.db.selectFrom('applications').select('short_id').where('id', '=', web).executeTakeFirstOrThrow()
    ).short_id;
    expect(
      (
        await api.call('POST', `/v1/applications/${webShortId}/environments`, {
          name: 'Staging',
          url: 'http://127.0.0.1:9/shop',
        })
      ).status,
    ).toBe(201);
    bare = await app('No environment', 'web');
    android = await app('Shop Android', 'android');
    ios = await app('Shop iOS', 'ios');
  }, 60_000);
  afterAll(async () => api?.close());

  const recorded = (applicationId: string, extra: { resumeFrom?: string } = {}) =>
    insertRecordedTestCase(api.db, {
      projectId: api.tenant.projectId,
      applicationId,
      name: `test ${randomUUID().slice(0, 6)}`,
      steps: loginSteps,
      ...extra,
    });
  const withState = async (
    applicationId: string,
    set: { generation_status?: 'GENERATING' | 'FAILED'; steps?: null },
  ) => {
    const id = await recorded(applicationId);
    await api.db
      .updateTable('test_cases')
      .set({ ...set, ...(set.steps === null && { steps: null }) })
      .where('id', '=', id)
      .execute();
    return id;
  };
  const insertions = () => countRows(api.db, 'step_insertions');
  const startedWorkflows = () => startedWorkflowIds(api);

  const cases: Case[] = [
    {
      name: 'an android test',
      make: () => recorded(android),
      status: 409,
      message: /^Shop Android is an android application: .*web tests only/,
    },
    { name: 'an iOS test', make: () => recorded(ios), status: 409, message: /^Shop iOS is an ios application: / },
    {
      name: 'a mobile test, even at a position that would be fine',
      make: () => recorded(android),
      body: { at: 0 },
      status: 409,
      message: /android application/,
    },
    {
      name: 'a web test whose application has no environment',
      make: () => recorded(bare),
      status: 409,
      message:
        /^application No environment has no environment with a URL to replay the steps against: create one \(POST \/v1\/applications\/app-/,
    },
    {
      name: 'a test still burning in',
      make: () => withState(web, { generation_status: 'GENERATING', steps: null }),
      status: 409,
      message: /^the test case is still burning in/,
    },
    {
      name: 'a test whose burn-in failed with no steps',
      make: () => withState(web, { generation_status: 'FAILED', steps: null }),
      status: 409,
      message: /^the test case has no recorded steps to insert into$/,
    },
    {
      name: 'a test resuming from one without steps',
      make: async () =>
        recorded(web, { resumeFrom: await withState(web, { generation_status: 'FAILED', steps: null }) }),
      status: 409,
      message: /^its resume-from dependency "test .*" has no recorded steps to replay first$/,
    },
    {
      name: 'a test whose resume-from chain is a cycle',
      make: async () => {
        const a = await recorded(web);
        const b = await recorded(web, { resumeFrom: a });
        await api.db.updateTable('test_cases').set({ resume_from_test_case_id: b }).where('id', '=', a).execute();
        return b;
      },
      status: 409,
      message: /^its resume-from dependencies form a cycle$/,
    },
    {
      name: 'a test with an insertion running',
      make: async () => {
        const id = await recorded(web);
        await api.db
          .insertInto('step_insertions')
          .values({
            id: randomUUID(),
            project_id: api.tenant.projectId,
            test_case_id: id,
            position: 0,
            description: 'earlier',
            based_on_version: 1,
            actor: JSON.stringify({ kind: 'api' }),
            status: 'RUNNING',
          })
          .execute();
        return id;
      },
      status: 409,
      message: /^a step is being inserted into this test case already/,
    },
    {
      name: 'a position past the end',
      make: () => recorded(web),
      body: { at: loginSteps.length + 1 },
      status: 400,
      message: new RegExp(
        `^at: a position from 0 \\(before the first step\\) to ${loginSteps.length} \\(after the last\\), not ${loginSteps.length + 1}$`,
      ),
    },
    { name: 'a negative position', make: () => recorded(web), body: { at: -1 }, status: 400, message: /^at: / },
    { name: 'a fractional position', make: () => recorded(web), body: { at: 1.5 }, status: 400, message: /^at: / },
    {
      name: 'a blank description',
      make: () => recorded(web),
      body: { description: '   ' },
      status: 400,
      message: /^description: say in words/,
    },
    { name: 'an unknown test case', make: async () => randomUUID(), status: 404, message: /^Test case not found$/ },
    {
      name: "another project's test case",
      make: async () => {
        const theirs = (await api.call('POST', '/v1/applications', { name: 'Theirs', kind: 'web' }, api.other.token))
          .body.shortId as string;
        const appId = await applicationIdOf(api.db, theirs);
        return insertRecordedTestCase(api.db, {
          projectId: api.other.projectId,
          applicationId: appId,
          name: 'theirs',
          steps: loginSteps,
        });
      },
      status: 404,
      message: /^Test case not found$/,
    },
  ];

  it(`refuses each of ${cases.length} known failures at once with its reason, writing and starting nothing`, async () => {
    const rowsBefore = await insertions();
    for (const c of cases) {
      const id = await c.make();
      const rowsOfCase = await insertions();
      const res = await api.call('POST', `/v1/test-cases/${id}/steps/insert`, {
        at: 1,
        description: 'Check the welcome text',
        ...c.body,
      });
      expect(res.status, `${c.name}: ${JSON.stringify(res.body)}`).toBe(c.status);
      expect(res.body.message, c.name).toMatch(c.message);
      expect(await insertions(), c.name).toBe(rowsOfCase);
    }
    // Only the seeded running insertion was added, by the case itself.
    expect(await insertions()).toBe(rowsBefore + 1);

    // The control: a web test with an environment and steps is accepted and its workflow starts, and it is the only one.
    const ok = await api.call('POST', `/v1/test-cases/${await recorded(web)}/steps/insert`, {
      at: 1,
      description: 'Check the welcome text',
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(202);
    await waitFor(async () => (await startedWorkflows()).length > 0, 15_000, 'the accepted insertion to be listed');
    expect(await startedWorkflows()).toEqual([workflowIds.insertStep(ok.body.id)]);
    const client = await api.deps.temporal.get();
    await client.workflow.getHandle(workflowIds.insertStep(ok.body.id)).terminate('test over');
  }, 60_000);

  it('accepts one of several insertions asked at the same moment; the others are refused, not failed later', async () => {
    const id = await recorded(web);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, k) =>
        api.call('POST', `/v1/test-cases/${id}/steps/insert`, { at: k % 3, description: `Check ${k}` }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([202, 409, 409, 409, 409, 409]);
    for (const a of answers.filter((x) => x.status === 409))
      expect(a.body.message).toBe('a step is being inserted into this test case already: wait for it to finish');
    const rows = await api.db
      .selectFrom('step_insertions')
      .select(['id', 'status'])
      .where('test_case_id', '=', id)
      .execute();
    expect(rows).toEqual([{ id: answers.find((a) => a.status === 202)!.body.id, status: 'RUNNING' }]);
    const client = await api.deps.temporal.get();
    await client.workflow.getHandle(workflowIds.insertStep(rows[0]!.id)).terminate('test over');
  }, 60_000);
});
