import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { msToTs } from '@temporalio/common/lib/time.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedProject } from '../../src/db/queries/admin.js';
import { loadPrograms } from '../../src/programs.js';
import { migrateSearchAttributes } from '../../src/temporal/search-attributes.js';
import { searchAttributes } from '../../workflows/search-attributes-contract.js';
import { startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';
import { applicationIdOf, brokenSteps, insertRecordedTestCase, todoSteps } from '../support/recorded.js';
import { startStack, waitForGeneration, waitForRun, type Stack } from '../support/worker-context.js';
import { waitFor } from '../support/net.js';

// The Temporal UI as the operator's console (issue 35, item 7): runs and burn-ins carry Proctor's search attributes
// and a readable summary, so "the failed runs of this project" is one visibility query, in the SDK and the CLI.

const ids = (list: WorkflowExecutionInfo[]) => list.map((w) => w.workflowId).sort();

async function list(client: Client, query: string): Promise<WorkflowExecutionInfo[]> {
  const found: WorkflowExecutionInfo[] = [];
  for await (const w of client.workflow.list({ query })) found.push(w);
  return found;
}

/**
 * Visibility is eventually consistent: the query is asked again until it finds `count` workflows (or the time is up);
 * what it found then is what the test checks, exactly.
 */
async function listUntil(client: Client, query: string, count: number): Promise<string[]> {
  let last: string[] = [];
  await waitFor(
    async () => {
      last = ids(await list(client, query));
      return last.length >= count;
    },
    20_000,
    `visibility to list ${count} workflow(s) for ${query}`,
  ).catch(() => undefined);
  return last;
}

describe('the Temporal UI as the operator console', () => {
  let apps: FixtureApps;
  let stack: Stack;
  let client: Client;
  let other: Awaited<ReturnType<typeof seedProject>>;
  let appShortId: string;
  const runs: Record<'passed' | 'failed', any> = {} as never;
  let otherFailed: string;
  let burnInId: string | undefined;

  /** A request as another project's token (the stack's `call` is the first project's). */
  const callAs = async (token: string, method: string, path: string, body?: unknown) => {
    const res = await stack.app.request(path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  /** A project with a Todo application, a plan of one passing test and a plan of one failing test. */
  async function plans(token: string, projectId: string): Promise<{ passing: string; failing: string; app: string }> {
    const call = (method: string, path: string, body?: unknown) => callAs(token, method, path, body);
    const app = (await call('POST', '/v1/applications', { name: 'Todo' })).body;
    await call('POST', `/v1/applications/${app.shortId}/environments`, { name: 'Default', url: `${apps.url}/todo/` });
    const applicationId = await applicationIdOf(stack.db, app.shortId);
    const milk = await insertRecordedTestCase(stack.db, {
      projectId,
      applicationId,
      name: 'todo milk',
      steps: todoSteps('milk'),
    });
    const broken = await insertRecordedTestCase(stack.db, {
      projectId,
      applicationId,
      name: 'broken',
      steps: brokenSteps,
    });
    const plan = async (name: string, testCaseIds: string[]) =>
      (await call('POST', '/v1/test-plans', { name, testCaseIds })).body.shortId as string;
    return { passing: await plan('Passing', [milk]), failing: await plan('Checkout', [broken]), app: app.shortId };
  }

  const startRun = async (token: string, testPlanShortId: string) => {
    const started = await callAs(token, 'POST', '/v1/run', { testPlanShortId, trigger: 'GITHUB', branch: 'main' });
    expect(started.status).toBe(200);
    return started.body.run.shortId as string;
  };

  beforeAll(async () => {
    apps = await startFixtureApps();
    stack = await startStack({ concurrency: 2 });
    client = await stack.temporal.get();
    other = await seedProject(stack.db, { organization: 'Acme', project: 'Other' });
    const mine = await plans(stack.tenant.token, stack.tenant.projectId);
    const theirs = await plans(other.token, other.projectId);
    appShortId = mine.app;
    const passed = await startRun(stack.tenant.token, mine.passing);
    const failed = await startRun(stack.tenant.token, mine.failing);
    otherFailed = await startRun(other.token, theirs.failing);
    runs.passed = await waitForRun(stack, passed);
    runs.failed = await waitForRun(stack, failed);
    // Not readable with the first project's token: its workflow's end is enough.
    expect(await client.workflow.getHandle(`run:${otherFailed}`).result()).toMatchObject({ result: 'FAILED' });
  }, 180_000);

  afterAll(async () => {
    // `RECORD_HISTORIES=1`: a failed run and a burn-in that upsert their attributes, replayed by test/workflows/replay.test.ts.
    if (process.env.RECORD_HISTORIES && runs.failed && burnInId) {
      const histories = {
        'planRun-search-attributes': `run:${runs.failed.shortId}`,
        'burnIn-search-attributes': `burn-in:${burnInId}`,
      };
      for (const [name, workflowId] of Object.entries(histories))
        writeFileSync(
          join('test/workflows/histories', `${name}.json`),
          historyToJSON(await client.workflow.getHandle(workflowId).fetchHistory()),
        );
    }
    await stack?.close();
    await apps?.stop();
  });

  it('lists the failed runs of one project, and only those, by search attribute', async () => {
    expect(runs.passed).toMatchObject({ status: 'COMPLETED', result: 'PASSED' });
    expect(runs.failed).toMatchObject({ status: 'COMPLETED', result: 'FAILED' });
    const project = stack.tenant.projectId;

    const failed = await listUntil(client, `ProctorProject = '${project}' AND ProctorResult = 'FAILED'`, 1);
    expect(failed).toEqual([`run:${runs.failed.shortId}`]);
    const passed = await listUntil(client, `ProctorProject = '${project}' AND ProctorResult = 'PASSED'`, 1);
    expect(passed).toEqual([`run:${runs.passed.shortId}`]);
    // Every failed run, whichever project: the other project's run is there too.
    const allFailed = await listUntil(
      client,
      `ProctorProject IN ('${project}', '${other.projectId}') AND ProctorResult = 'FAILED' AND WorkflowType = 'planRun'`,
      2,
    );
    expect(allFailed).toEqual([`run:${runs.failed.shortId}`, `run:${otherFailed}`].sort());

    // Why it failed, as the run's tests say, and the plan, run and trigger it was started with.
    const kind = runs.failed.runTestCases[0].failureKind;
    expect(kind).toBeTruthy();
    const byKind = await listUntil(client, `ProctorProject = '${project}' AND ProctorFailureKind = '${kind}'`, 1);
    expect(byKind).toEqual([`run:${runs.failed.shortId}`]);
    const description = await client.workflow.getHandle(`run:${runs.failed.shortId}`).describe();
    const attrs = description.typedSearchAttributes;
    expect(attrs.get(searchAttributes.run)).toBe(runs.failed.shortId);
    expect(attrs.get(searchAttributes.plan)).toBe(runs.failed.testPlan.shortId);
    expect(attrs.get(searchAttributes.trigger)).toBe('GITHUB');
    expect(attrs.get(searchAttributes.failureKind)).toEqual([kind]);
    // The upsert is behind its patch, so histories from before it replay (test/workflows/replay.test.ts).
    expect(attrs.getAll().find((p) => p.key.name === 'TemporalChangeVersion')?.value).toContain('search-attributes');
    expect(await description.staticSummary()).toBe(`Run ${runs.failed.shortId} of plan 'Checkout': 1 test(s)`);
  });

  it('answers the same query through `temporal workflow list --query`', async () => {
    const temporalCli = loadPrograms().temporal ?? 'temporal';
    const { stdout } = await promisify(execFile)(temporalCli, [
      'workflow',
      'list',
      '--address',
      stack.temporal.address,
      '--namespace',
      stack.temporal.namespace,
      '--query',
      `ProctorProject = '${stack.tenant.projectId}' AND ProctorResult = 'FAILED'`,
      '--output',
      'json',
    ]);
    const listed = (JSON.parse(stdout) as { execution: { workflowId: string } }[]).map((w) => w.execution.workflowId);
    expect(listed).toEqual([`run:${runs.failed.shortId}`]);
  });

  it("lists one test case's burn-ins by search attribute, with the burn-in's result", async () => {
    const app = appShortId;
    // No LLM is configured: each burn-in starts, then fails saying so.
    const created: { id: string }[] = [];
    for (const name of ['sign up', 'sign in']) {
      const answer = await stack.call('POST', '/v1/test-cases', {
        applicationShortId: app,
        name,
        goal: `${name} works`,
      });
      expect(answer.status).toBe(200);
      created.push(answer.body.testCase);
    }
    for (const c of created) expect(await waitForGeneration(stack, c.id)).toMatchObject({ generationStatus: 'FAILED' });
    const first = created[0]!;
    burnInId = first.id;
    const burnIns = await listUntil(client, `ProctorTestCase = '${first.id}' AND WorkflowType = 'burnIn'`, 1);
    expect(burnIns).toEqual([`burn-in:${first.id}`]);
    const failed = await listUntil(
      client,
      `ProctorProject = '${stack.tenant.projectId}' AND WorkflowType = 'burnIn' AND ProctorResult = 'FAILED'`,
      2,
    );
    expect(failed).toEqual(created.map((c) => `burn-in:${c.id}`).sort());
    const description = await client.workflow.getHandle(`burn-in:${first.id}`).describe();
    expect(description.typedSearchAttributes.get(searchAttributes.application)).toBe(app);
    expect(await description.staticSummary()).toBe('Burn-in: sign up');
  });

  it('`proctor migrate` registers the attributes on a namespace that lacks them, once', async () => {
    const namespace = `migrate-${randomBytes(4).toString('hex')}`;
    await client.connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs('1 day'),
    });
    const names = Object.values(searchAttributes).map((k) => k.name);
    const migrate = () => migrateSearchAttributes(stack.temporal.address, namespace);
    // A namespace registered a moment ago may not be served yet by every part of the server: asked again until it is.
    let said = '';
    await waitFor(
      async () => {
        said = await migrate().catch((err: Error) => err.message);
        return said.startsWith('search attributes registered');
      },
      20_000,
      `the namespace ${namespace} to take search attributes`,
    );
    expect(said.split(': ')[1]!.split(', ').sort()).toEqual([...names].sort());
    // A second migration finds them there and adds nothing.
    expect(await migrate()).toBe('search attributes are up to date');
    const listed = await client.connection.operatorService.listSearchAttributes({ namespace });
    for (const name of names) expect(Object.keys(listed.customAttributes ?? {})).toContain(name);
  });
});
