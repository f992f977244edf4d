import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures } from '../support/build-fixtures.js';
import { insertRecordedTestCase, applicationIdOf } from '../support/recorded.js';
import { startStack, waitForRun, type Stack } from '../support/worker-context.js';

describe('a run with a mobile build override (no device farm configured)', () => {
  let stack: Stack;
  let android: string;
  let buildShortId: string;
  let planShortId: string;

  beforeAll(async () => {
    stack = await startStack();
    android = (await stack.call('POST', '/v1/applications', { name: 'Shop Android', kind: 'android' })).body.shortId;
    const upload = await stack.call('POST', `/v1/applications/${android}/builds/upload-url`, {
      fileName: 'shop-1.4.2.apk',
    });
    expect(upload.status).toBe(200);
    // The fs store's URL is served by this same app; the upload itself is covered over real HTTP in test/api/builds.test.ts.
    const url = new URL(upload.body.uploadUrl);
    const put = await stack.app.request(url.pathname + url.search, {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream' },
      body: new Uint8Array(await fixtures.apk()),
    });
    expect(put.status).toBe(200);
    const build = await stack.call('POST', `/v1/applications/${android}/builds`, {
      platform: 'android',
      buildToken: upload.body.buildToken,
    });
    expect(build.status).toBe(200);
    buildShortId = build.body.applicationBuildShortId;

    const appId = await applicationIdOf(stack.db, android);
    const testCaseId = await insertRecordedTestCase(stack.db, {
      projectId: stack.tenant.projectId,
      applicationId: appId,
      name: 'add to cart on Android',
      steps: [{ action: 'click', locator: "getByRole('button', { name: 'Add to cart' })", description: 'Add the mug' }],
    });
    planShortId = (await stack.call('POST', '/v1/test-plans', { name: 'Mobile', testCaseIds: [testCaseId] })).body
      .shortId;
  }, 120_000);

  afterAll(() => stack?.close());

  const startWithBuild = () =>
    stack.call('POST', '/v1/run', {
      testPlanShortId: planShortId,
      applications: [{ applicationShortId: android, environment: { applicationBuildShortId: buildShortId } }],
    });
  const buildEnvironments = async () =>
    (await stack.call('GET', `/v1/applications/${android}/environments`)).body.environments.filter(
      (e: any) => e.applicationBuildShortId === buildShortId,
    );

  it('creates an environment holding the build, and the test ends ERROR saying there is no device farm', async () => {
    const started = await startWithBuild();
    expect(started.status).toBe(200);
    const environments = await buildEnvironments();
    expect(environments).toHaveLength(1);
    expect(environments[0]).toMatchObject({ url: null, name: 'Build shop-1.4.2.apk' });

    const run = await waitForRun(stack, started.body.run.shortId);
    expect(run).toMatchObject({ status: 'COMPLETED', result: 'FAILED' });
    const [test] = run.runTestCases;
    expect(test).toMatchObject({
      name: 'add to cart on Android',
      status: 'ERROR',
      result: 'FAILED',
      environmentUrl: null,
    });
    expect(test.error).toMatch(
      /no device farm is configured, so the Android build "shop-1\.4\.2\.apk" \(build_\w+\) could not be installed/,
    );
  }, 120_000);

  it('reuses that environment on the next run with the same build', async () => {
    const first = (await buildEnvironments())[0].shortId;
    const started = await startWithBuild();
    expect(started.status).toBe(200);
    expect((await buildEnvironments()).map((e: any) => e.shortId)).toEqual([first]);
    const run = await waitForRun(stack, started.body.run.shortId);
    expect(run.result).not.toBe('PASSED');
    expect(run.runTestCases[0].status).toBe('ERROR');

    // The environment now holds the build, so naming it instead of the build runs the build too.
    const byEnvironment = await stack.call('POST', '/v1/run', {
      testPlanShortId: planShortId,
      applications: [{ applicationShortId: android, environment: { shortId: first } }],
    });
    const again = await waitForRun(stack, byEnvironment.body.run.shortId);
    expect(again.runTestCases[0].error).toMatch(/no device farm is configured/);

    // A rerun runs on the original run's build, not on a URL it never had.
    const rerun = await stack.call('POST', `/v1/run/${byEnvironment.body.run.shortId}`, { failedOnly: true });
    expect(rerun.status).toBe(200);
    const rerunResult = await waitForRun(stack, rerun.body.run.shortId);
    expect(rerunResult.runTestCases[0]).toMatchObject({
      status: 'ERROR',
      error: expect.stringMatching(/no device farm is configured/),
    });
  }, 120_000);

  it('refuses a build of another application or an unknown one, and starts nothing', async () => {
    const before = (await stack.db.selectFrom('runs').select('id').execute()).length;
    const unknown = await stack.call('POST', '/v1/run', {
      testPlanShortId: planShortId,
      applications: [{ applicationShortId: android, environment: { applicationBuildShortId: 'build_nope' } }],
    });
    expect(unknown).toMatchObject({ status: 404, body: { message: 'Application build not found: build_nope' } });
    // A second Android application with a test of its own cannot run the first one's build.
    const beta = (await stack.call('POST', '/v1/applications', { name: 'Shop Beta', kind: 'android' })).body.shortId;
    const betaId = await applicationIdOf(stack.db, beta);
    const betaTest = await insertRecordedTestCase(stack.db, {
      projectId: stack.tenant.projectId,
      applicationId: betaId,
      name: 'beta',
      steps: [],
    });
    const betaPlan = (await stack.call('POST', '/v1/test-plans', { name: 'Beta', testCaseIds: [betaTest] })).body
      .shortId;
    const foreign = await stack.call('POST', '/v1/run', {
      testPlanShortId: betaPlan,
      applications: [{ applicationShortId: beta, environment: { applicationBuildShortId: buildShortId } }],
    });
    expect(foreign).toMatchObject({ status: 404, body: { message: `Application build not found: ${buildShortId}` } });
    expect((await stack.db.selectFrom('runs').select('id').execute()).length).toBe(before);
  }, 60_000);
});
