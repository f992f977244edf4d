// scripts/ci-run.sh against the real API over HTTP, as a CI job would run it; docs/ci.md must show it verbatim.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addApplication } from '../support/applications.js';
import { startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';
import { freePort } from '../support/net.js';
import { brokenSteps, insertRecordedTestCase, todoSteps } from '../support/recorded.js';
import { startStack, type Stack } from '../support/worker-context.js';

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the script with only the given variables (the CI variables of the machine running the tests must not leak in). */
function ciRun(env: Record<string, string>): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['scripts/ci-run.sh'], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('scripts/ci-run.sh', () => {
  let apps: FixtureApps;
  let stack: Stack;
  let server: ServerType;
  let url: string;
  let failingPlan: string;

  beforeAll(async () => {
    apps = await startFixtureApps();
    stack = await startStack();
    const port = await freePort();
    await new Promise<void>((resolve) => {
      server = serve({ fetch: stack.app.fetch, hostname: '127.0.0.1', port }, () => resolve());
    });
    url = `http://127.0.0.1:${port}`;

    const { id: applicationId } = await addApplication(stack, 'Todo', { name: 'Local', url: `${apps.url}/todo/` });
    const add = (name: string, steps: typeof brokenSteps, waitFor?: string[]) =>
      insertRecordedTestCase(stack.db, { projectId: stack.tenant.projectId, applicationId, name, steps, waitFor });
    const milk = await add('add milk', todoSteps('milk'));
    const broken = await add('archive everything', brokenSteps);
    const after = await add('after archiving', todoSteps('bread'), [broken]);

    const passing = await stack.call('POST', '/v1/test-plans', { name: 'Smoke', isDefault: true, testCaseIds: [milk] });
    expect(passing.status).toBe(201);
    const failing = await stack.call('POST', '/v1/test-plans', { name: 'Nightly', testCaseIds: [milk, broken, after] });
    expect(failing.status).toBe(201);
    failingPlan = failing.body.shortId;
  }, 120_000);

  afterAll(async () => {
    if (server) {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      });
    }
    await stack?.close();
    await apps?.stop();
  });

  it('runs the default plan, records the CI metadata and exits 0 when it passes', async () => {
    const res = await ciRun({
      PROCTOR_URL: `${url}/`,
      PROCTOR_TOKEN: stack.tenant.token,
      POLL_INTERVAL: '1',
      GITHUB_ACTIONS: 'true',
      GITHUB_SHA: '0123456789abcdef0123456789abcdef01234567',
      GITHUB_REF_NAME: 'main',
      GITHUB_REPOSITORY: 'acme/shop',
      GITHUB_ACTOR: 'ada',
    });
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const shortId = /Proctor run (run_\S+) started: 1 test\(s\) of plan "Smoke"/.exec(res.stdout)?.[1];
    expect(shortId, res.stdout).toBeDefined();
    expect(res.stdout).toContain(`  https://app.proctor.test/runs/${shortId}\n`);
    expect(res.stdout).toContain(`Run ${shortId} COMPLETED, result PASSED`);
    expect(res.stderr).toBe('');

    const run = await stack.db
      .selectFrom('runs')
      .selectAll()
      .where('short_id', '=', shortId!)
      .executeTakeFirstOrThrow();
    expect(run).toMatchObject({
      trigger: 'GITHUB',
      branch: 'main',
      commit_hash: '0123456789abcdef0123456789abcdef01234567',
      repository: 'acme/shop',
      actor: 'ada',
    });
  }, 90_000);

  it('runs the given plan and exits non-zero with one line per test that did not pass', async () => {
    const res = await ciRun({
      PROCTOR_URL: url,
      PROCTOR_TOKEN: stack.tenant.token,
      PROCTOR_TEST_PLAN: failingPlan,
      POLL_INTERVAL: '1',
      GITLAB_CI: 'true',
      CI_COMMIT_SHA: 'fedcba9876543210',
      CI_COMMIT_REF_NAME: 'feature/x',
      CI_COMMIT_MESSAGE: 'Archive\n\neverything',
    });
    expect(res.code, res.stdout + res.stderr).toBe(1);
    expect(res.stdout).toMatch(/started: 3 test\(s\) of plan "Nightly"/);
    expect(res.stdout).toMatch(/COMPLETED, result FAILED/);
    const lines = res.stdout.split('\n');
    expect(lines.find((l) => l.includes('archive everything'))).toMatch(
      /^ {2}FAILED {2}archive everything: step 2 \(click\)/,
    );
    expect(lines.find((l) => l.includes('after archiving'))).toMatch(
      /^ {2}SKIPPED {2}after archiving: .*wait-for dependency/,
    );
    expect(res.stdout).not.toContain('add milk');

    const shortId = /Proctor run (run_\S+)/.exec(res.stdout)![1]!;
    const run = await stack.db.selectFrom('runs').selectAll().where('short_id', '=', shortId).executeTakeFirstOrThrow();
    expect(run).toMatchObject({
      trigger: 'GITLAB',
      branch: 'feature/x',
      commit_hash: 'fedcba9876543210',
      commit_message: 'Archive\n\neverything',
    });
  }, 90_000);

  it("exits non-zero with the API's message on an HTTP error", async () => {
    const badToken = await ciRun({ PROCTOR_URL: url, PROCTOR_TOKEN: 'prt_not-a-real-token', POLL_INTERVAL: '1' });
    expect(badToken.code).toBe(3);
    expect(badToken.stderr).toContain('POST /v1/run: HTTP 401: Invalid API token');
    expect(badToken.stdout).toBe('');

    const unknownPlan = await ciRun({
      PROCTOR_URL: url,
      PROCTOR_TOKEN: stack.tenant.token,
      PROCTOR_TEST_PLAN: 'pln_doesnotexist',
    });
    expect(unknownPlan.code).toBe(3);
    expect(unknownPlan.stderr).toContain('HTTP 404: Test plan not found');

    const missing = await ciRun({ PROCTOR_URL: url });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('PROCTOR_TOKEN');
  });

  it('is shown verbatim in docs/ci.md', () => {
    const script = readFileSync('scripts/ci-run.sh', 'utf8');
    expect(readFileSync('docs/ci.md', 'utf8')).toContain(script);
  });
});
