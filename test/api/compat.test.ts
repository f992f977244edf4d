import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, useApiContext } from '../support/app-context.js';
import { rowIdOf } from '../support/row-ids.js';
import { applicationIdOf, insertTestCaseRow } from '../support/recorded.js';
import { countRows } from '../support/row-counts.js';

// What QAdottech/run-action sends and reads, field for field (src/index.ts and src/api-client.ts of the action):
// v2 posts { trigger: "GITHUB", actor, branch: github.context.ref, commitHash: sha, repository: "owner/repo",
// testPlanShortId?, applications? } to {api_url}/api/projects/{project_id}/runs, logs run.shortId, run.url,
// run.testPlan.name and run.testPlan.short_id, then (blocking) polls {api_url}/api/projects/{project_id}/runs/{shortId}
// for `status` and `result`. v4 posts { trigger, projectShortId, actor, branch, commitHash, repository,
// testPlanShortId?, applications?: [{ applicationShortId, environment }] } and polls {base}/run/{shortId}.
describe.each(databaseKinds)("QA.tech's GitHub Action against Proctor (%s)", (kind) => {
  const ctx = useApiContext(kind);
  let appShortId: string;
  let planShortId: string;
  let otherPlanShortId: string;
  const sha = 'f3c1e2d4a5b6978812345678901234567890abcd';

  beforeAll(async () => {
    appShortId = (await ctx.call('POST', '/v1/applications', { name: 'Shop' })).body.shortId;
    const env = await ctx.call('POST', `/v1/applications/${appShortId}/environments`, {
      name: 'Staging',
      url: 'https://staging.shop.test',
    });
    expect(env.status).toBe(201);
    expect(
      (await ctx.call('PATCH', `/v1/applications/${appShortId}`, { defaultEnvironmentShortId: env.body.shortId }))
        .status,
    ).toBe(200);
    const appId = await applicationIdOf(ctx.db, appShortId);
    // A recorded, enabled test: what a burn-in leaves behind.
    const ids: string[] = [];
    for (const name of ['Sign in', 'Checkout'])
      ids.push(
        await insertTestCaseRow(
          ctx.db,
          { projectId: ctx.tenant.projectId, applicationId: appId },
          { name, goal: 'Buy a mug', is_enabled: true, generation_status: 'COMPLETED' },
        ),
      );
    const plan = await ctx.call('POST', '/v1/test-plans', { name: 'Smoke', testCaseIds: ids, isDefault: true });
    expect(plan.status).toBe(201);
    planShortId = plan.body.shortId;
    otherPlanShortId = (await ctx.call('POST', '/v1/test-plans', { name: 'Checkout only', testCaseIds: [ids[1]] })).body
      .shortId;
  });

  const runCount = () => countRows(ctx.db, 'runs');

  it('v2: starts a run with applications keyed by short id, answers what the action logs, and the run is on /v1 too', async () => {
    const started = await ctx.call('POST', `/api/projects/${ctx.tenant.projectId}/runs`, {
      trigger: 'GITHUB',
      actor: 'octocat',
      branch: 'refs/heads/feature/cart',
      commitHash: sha,
      repository: 'acme/shop',
      testPlanShortId: planShortId,
      applications: { [appShortId]: { environment: { url: 'https://pr-42.shop.test', name: 'PR 42' } } },
    });
    expect(started.status).toBe(200);
    const run = started.body.run;
    expect(started.body.success).toBe(true);
    expect(run).toEqual({
      id: expect.any(String),
      shortId: expect.stringMatching(/^run_/),
      url: `https://app.proctor.test/runs/${run.shortId}`,
      testCount: 2,
      testPlan: { name: 'Smoke', shortId: planShortId, short_id: planShortId },
    });

    // The blocking poll of the action: status and result at the top level.
    const polled = await ctx.call('GET', `/api/projects/${ctx.tenant.projectId}/runs/${run.shortId}`);
    expect(polled.status).toBe(200);
    expect(polled.body).toMatchObject({
      id: run.id,
      shortId: run.shortId,
      short_id: run.shortId,
      status: 'INITIATED',
      result: null,
      testCount: 2,
    });
    expect(polled.body.testPlan.short_id).toBe(planShortId);

    // The same run through /v1: metadata as the action sent it (the ref as a branch name), the override URL on every test.
    const v1 = await ctx.call('GET', `/v1/run/${run.shortId}?testCases=all`);
    expect(v1.status).toBe(200);
    expect(v1.body).toMatchObject({
      shortId: run.shortId,
      trigger: 'GITHUB',
      status: 'INITIATED',
      testPlan: { name: 'Smoke', shortId: planShortId },
    });
    expect(
      v1.body.runTestCases.map((t: { name: string; environmentUrl: string }) => [t.name, t.environmentUrl]).sort(),
    ).toEqual([
      ['Checkout', 'https://pr-42.shop.test'],
      ['Sign in', 'https://pr-42.shop.test'],
    ]);
    const listed = (await ctx.call('GET', '/v1/run')).body.runs.find(
      (r: { shortId: string }) => r.shortId === run.shortId,
    );
    expect(listed).toMatchObject({ branch: 'feature/cart', commitHash: sha });
    // The API shows no actor or repository; they are kept on the run as sent.
    const stored = await ctx.db
      .selectFrom('runs')
      .select(['actor', 'repository'])
      .where('short_id', '=', run.shortId)
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({ actor: 'octocat', repository: 'acme/shop' });
  });

  it('v2: with neither plan nor applications runs the default plan on its environments', async () => {
    const started = await ctx.call('POST', `/api/projects/${ctx.tenant.projectId}/runs`, {
      trigger: 'GITHUB',
      actor: 'octocat',
      branch: 'refs/heads/main',
      commitHash: sha,
      repository: 'acme/shop',
    });
    expect(started.status).toBe(200);
    expect(started.body.run.testPlan.short_id).toBe(planShortId);
    const tests = (await ctx.call('GET', `/v1/run/${started.body.run.shortId}?testCases=all`)).body.runTestCases;
    expect(tests.map((t: { environmentUrl: string }) => t.environmentUrl)).toEqual([
      'https://staging.shop.test',
      'https://staging.shop.test',
    ]);
    // v1 of the action sent a list of plans; one is accepted.
    const v1line = await ctx.call('POST', `/api/projects/${ctx.tenant.projectId}/runs`, {
      trigger: 'GITHUB',
      actor: 'octocat',
      branch: 'refs/heads/main',
      commitHash: sha,
      repository: 'shop',
      testPlanShortIds: [otherPlanShortId],
    });
    expect(v1line.status).toBe(200);
    expect(v1line.body.run).toMatchObject({ testCount: 1, testPlan: { short_id: otherPlanShortId } });
  });

  it('v4: starts through /v1/run with its array of applications and polls {api_url}/run/{shortId}', async () => {
    const started = await ctx.call('POST', '/v1/run', {
      trigger: 'GITHUB',
      projectShortId: ctx.tenant.projectId,
      actor: 'octocat',
      branch: 'refs/heads/main',
      commitHash: sha,
      repository: 'acme/shop',
      testPlanShortId: otherPlanShortId,
      applications: [{ applicationShortId: appShortId, environment: { url: 'https://pr-7.shop.test', name: 'PR 7' } }],
    });
    expect(started.status).toBe(200);
    const shortId = started.body.run.shortId;
    for (const path of [`/v1/run/${shortId}`, `/run/${shortId}`]) {
      const polled = await ctx.call('GET', path);
      expect(polled.status, path).toBe(200);
      expect(polled.body, path).toMatchObject({ id: started.body.run.id, shortId, status: 'INITIATED', result: null });
    }
  });

  it('GET /v1/run/{shortId} always carries runTestCases: empty unless asked, only the tests that did not pass with ?testCases=failed', async () => {
    const started = await ctx.call('POST', '/v1/run', { testPlanShortId: planShortId });
    const runId = await rowIdOf(ctx.db, 'runs', started.body.run.shortId);
    const finished = new Date('2026-11-23T10:00:00.000Z');
    await ctx.db
      .updateTable('run_test_cases')
      .set({ status: 'COMPLETED', result: 'PASSED', started_at: finished, finished_at: finished, duration_ms: 900 })
      .where('run_id', '=', runId)
      .where('name', '=', 'Sign in')
      .execute();
    await ctx.db
      .updateTable('run_test_cases')
      .set({ status: 'COMPLETED', result: 'FAILED', error: 'no button "Pay"', failed_step_index: 3 })
      .where('run_id', '=', runId)
      .where('name', '=', 'Checkout')
      .execute();

    const plain = await ctx.call('GET', `/v1/run/${started.body.run.shortId}`);
    expect(plain.status).toBe(200);
    expect(plain.body.runTestCases).toEqual([]);
    const failed = await ctx.call('GET', `/v1/run/${started.body.run.shortId}?testCases=failed`);
    expect(failed.body.runTestCases).toHaveLength(1);
    expect(failed.body.runTestCases[0]).toMatchObject({
      name: 'Checkout',
      result: 'FAILED',
      evaluationThought: 'no button "Pay"',
      failedStepIndex: 3,
      healedSteps: [],
      promptExamples: null,
    });
    // QA.tech's contract for an ended run: promptGoal and promptExamples are each a string or null, never a list.
    for (const t of failed.body.runTestCases)
      for (const field of ['promptGoal', 'promptExamples'])
        expect(t[field] === null || typeof t[field] === 'string', field).toBe(true);
    const all = await ctx.call('GET', `/v1/run/${started.body.run.shortId}?testCases=all`);
    const signIn = all.body.runTestCases.find((t: { name: string }) => t.name === 'Sign in');
    expect(signIn).toMatchObject({
      status: 'COMPLETED',
      result: 'PASSED',
      durationMs: 900,
      startedAt: '2026-11-23T10:00:00.000Z',
      finishedAt: '2026-11-23T10:00:00.000Z',
      inPlan: true,
    });
    expect(all.body.runTestCases).toHaveLength(2);
  });

  it("404 for another project's id or an unknown one, and for another project's run; nothing is written", async () => {
    const before = await runCount();
    const body = {
      trigger: 'GITHUB',
      actor: 'octocat',
      branch: 'refs/heads/main',
      commitHash: sha,
      repository: 'acme/shop',
    };
    for (const projectId of [ctx.other.projectId, 'qatech-project-id', randomUUID()]) {
      const res = await ctx.call('POST', `/api/projects/${projectId}/runs`, body);
      expect(res.status, projectId).toBe(404);
      expect(res.body.message).toMatch(/^Project not found/);
      expect((await ctx.call('GET', `/api/projects/${projectId}/runs/run_doesnotexist`)).status).toBe(404);
    }
    expect(await runCount()).toBe(before);

    const mine = (await ctx.call('POST', `/api/projects/${ctx.tenant.projectId}/runs`, body)).body.run.shortId;
    // The other organization's token, with its own project id in the path, cannot see this run.
    for (const path of [`/api/projects/${ctx.other.projectId}/runs/${mine}`, `/run/${mine}`]) {
      const res = await ctx.call('GET', path, undefined, ctx.other.token);
      expect(res.status, path).toBe(404);
      expect(res.body).toEqual({ message: 'Run not found' });
    }
  });

  it('answers bad input with 400 { message } naming the field, an unknown application with 404, no token with 401, and writes nothing', async () => {
    const before = await runCount();
    const path = `/api/projects/${ctx.tenant.projectId}/runs`;
    const base = {
      trigger: 'GITHUB',
      actor: 'octocat',
      branch: 'refs/heads/main',
      commitHash: sha,
      repository: 'acme/shop',
    };
    for (const [body, message] of [
      [
        { ...base, applications: [{ applicationShortId: appShortId, environment: { url: 'https://x.test' } }] },
        /^applications:/,
      ],
      [{ ...base, applications: { 'not-an-app': { environment: { url: 'https://x.test' } } } }, /^applications/],
      [
        { ...base, applications: { [appShortId]: { environment: { url: 'ftp://x.test' } } } },
        /^applications\..+\.environment\.url:/,
      ],
      [{ ...base, applications: { [appShortId]: { environment: {} } } }, /^applications\..+\.environment\.url:/],
      [{ ...base, testPlanShortId: 'smoke' }, /^testPlanShortId:/],
      [{ ...base, testPlanShortIds: [planShortId, otherPlanShortId] }, /^testPlanShortIds:.*one test plan per run/],
      [
        {
          ...base,
          exploratoryUrl: 'https://shop.test',
          exploratoryPrompt: 'look around',
          integrationName: 'GitHub Action',
        },
        /^exploratoryUrl: exploratory runs are not supported/,
      ],
      [{ ...base, branch: 'main\u0000' }, /^branch: must not contain the NUL character/],
      ['{"trigger": "GITHUB",', /JSON/],
    ] as const) {
      const res = await ctx.call('POST', path, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    // A body that is not JSON is refused before anything runs.
    const plain = await ctx.app.request(path, {
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.tenant.token}`, 'content-type': 'text/plain' },
      body: JSON.stringify(base),
    });
    expect(plain.status).toBe(415);
    expect(Object.keys((await plain.json()) as object)).toEqual(['message']);
    const unknownApp = await ctx.call('POST', path, {
      ...base,
      applications: { app_doesnotexist: { environment: { url: 'https://x.test' } } },
    });
    expect(unknownApp.status).toBe(404);
    expect(unknownApp.body).toEqual({ message: 'Application not found: app_doesnotexist' });
    const unknownPlan = await ctx.call('POST', path, { ...base, testPlanShortId: 'pln_doesnotexist' });
    expect(unknownPlan.status).toBe(404);

    const anonymous = await ctx.call('POST', path, base, null);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.message).toMatch(/Bearer/);
    expect((await ctx.call('GET', `${path}/run_doesnotexist`, undefined, null)).status).toBe(401);
    expect((await ctx.call('GET', '/run/run_doesnotexist', undefined, null)).status).toBe(401);
    expect(await runCount()).toBe(before);
  });
});
