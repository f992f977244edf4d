// The production shape as processes (test/support/production-shape.ts): `proctor migrate`, two `proctor api` and two
// `proctor worker` over one PostgreSQL, a Temporal server with a persistent database, MinIO and the scripted model.
// What one API process accepts, the other serves; the workers share the work; a tunnel client connected to one
// API process serves the requests reaching the other; a burn-in (through that tunnel), a chat turn and a change
// review finish through them.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentProjectHeader, agentSecretHeader } from '../../src/tunnels/protocol.js';
import { createRouter } from '../support/agent-script.js';
import { pollChat } from '../support/chat-polling.js';
import { startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';
import { startProductionShape, type ProductionShape } from '../support/production-shape.js';
import { applicationIdOf, insertRecordedTestCase, todoSteps } from '../support/recorded.js';
import { waitFor } from '../support/net.js';
import { changeReviewAction, reviewResponder } from '../support/review-script.js';
import { addShop, loginGoal, loginMoves } from '../support/shop-agent-script.js';
import { burnInOnShop } from '../support/shop-stack.js';
import { requestTunnel, spawnTunnel, type TunnelProcess } from '../support/tunnel-stack.js';
import { waitForRun } from '../support/worker-context.js';

describe('the production shape: two API and two worker processes', () => {
  let shape: ProductionShape;
  let apps: FixtureApps;
  let tunnel: TunnelProcess;
  /** The Todo application and its recorded tests, made through the first API process by the first test. */
  const todo = { appShortId: '', testIds: [] as string[] };

  beforeAll(async () => {
    [shape, apps] = await Promise.all([startProductionShape(), startFixtureApps()]);
    // A developer's `proctor tunnel` for the fixture apps, connected to the second API process only.
    tunnel = await spawnTunnel(['--port', `apps=${new URL(apps.url).port}`, '--api-url', shape.apis[1]!.url], {
      PROCTOR_TOKEN: shape.tenant.token,
    });
  }, 240_000);
  afterAll(async () => {
    tunnel?.child.kill('SIGKILL');
    await shape?.stop();
    await apps?.stop();
  });

  it('serves, from the built code, what it reads beside itself: the dashboard stylesheet, the API reference, the trace viewer', async () => {
    // The processes run the CLI as the image ships it (scripts/build.ts): one bundle, files read next to it.
    const api = shape.apis[0]!.url;
    const signIn = await fetch(`${api}/`);
    expect(signIn.status).toBe(200);
    const css = /<link rel="stylesheet" href="([^"]+)"/.exec(await signIn.text())?.[1];
    expect(css, 'the sign-in page links its stylesheet').toMatch(/^\/assets\/app\.\w+\.css$/);
    const served = await fetch(`${api}${css}`);
    expect(served.headers.get('content-type')).toMatch(/^text\/css/);
    expect(await served.text()).toBe(readFileSync('src/web/assets/app.css', 'utf8'));
    const docs = await fetch(`${api}/docs`);
    const script = /src="(\/docs\/scalar\.\w+\.js)"/.exec(await docs.text())?.[1];
    expect(script, 'the API reference page loads its script from this process').toBeDefined();
    expect((await fetch(`${api}${script}`)).status).toBe(200);
    const viewer = await fetch(`${api}/trace-viewer/index.html`);
    expect(viewer.status).toBe(200);
    expect(await viewer.text()).toContain('<title>Playwright Trace Viewer</title>');
  });

  it('runs a plan started through one API process and read through the other', async () => {
    // Each worker answers its probes on its metrics port (the Helm chart probes them there).
    for (const w of shape.workers) {
      const ready = await fetch(`${w.metricsUrl}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({
        status: 'ready',
        checks: { database: { ok: true }, temporal: { ok: true }, blobStore: { ok: true }, poller: { ok: true } },
      });
      expect((await fetch(`${w.metricsUrl}/livez`)).status).toBe(200);
    }
    const [a, b] = shape.apis as [ProductionShape['apis'][0], ProductionShape['apis'][0]];
    const app = (await a.call('POST', '/v1/applications', { name: 'Todo' })).body;
    todo.appShortId = app.shortId;
    expect(
      (
        await a.call('POST', `/v1/applications/${app.shortId}/environments`, {
          name: 'Local',
          url: `${apps.url}/todo/`,
        })
      ).status,
    ).toBe(201);
    const applicationId = await applicationIdOf(shape.db, app.shortId);
    const ids = await Promise.all(
      ['milk', 'bread', 'eggs', 'tea', 'rice', 'salt'].map((item) =>
        insertRecordedTestCase(shape.db, {
          projectId: shape.tenant.projectId,
          applicationId,
          name: `Add ${item}`,
          steps: todoSteps(item),
        }),
      ),
    );
    todo.testIds = ids;
    expect((await a.call('POST', '/v1/test-plans', { name: 'Todo', isDefault: true, testCaseIds: ids })).status).toBe(
      201,
    );

    const started = await a.call('POST', '/v1/run', { trigger: 'CI' });
    expect(started.status).toBe(200);
    const run = await waitForRun(b, started.body.run.shortId, undefined, 180_000);
    expect(run).toMatchObject({ status: 'COMPLETED', result: 'PASSED' });
    expect(run.runTestCases).toHaveLength(6);
    for (const t of run.runTestCases) expect(t, t.name).toMatchObject({ status: 'COMPLETED', result: 'PASSED' });
    // Each test recorded once.
    const rows = await shape.db
      .selectFrom('run_test_cases')
      .select(['test_case_id'])
      .where('run_id', '=', started.body.run.id)
      .execute();
    expect(rows.map((r) => r.test_case_id).sort()).toEqual([...ids].sort());
    // What the run stored in MinIO is served to a client of the other API process.
    const traces = run.runTestCases.map((t: { traceUrl: string | null }) => t.traceUrl);
    expect(traces.every(Boolean), JSON.stringify(traces)).toBe(true);
    for (const url of traces) expect((await fetch(url)).status).toBe(200);
  }, 240_000);

  it('serves a tunnel through either API process: the client holds its connections on one, the other relays', async () => {
    const [a, b] = shape.apis as [ProductionShape['apis'][0], ProductionShape['apis'][0]];
    const status = async () => (await a.call('GET', `/v1/remote-tunnels/${tunnel.runnerId()}/status`)).body;
    await waitFor(async () => (await status()).connections === 4, 30_000, 'four tunnel connections');
    expect(await status()).toMatchObject({ status: 'healthy', connections: 4 });
    // The connections are registered under the second process's own address, which is where they are.
    const edges = await shape.db.selectFrom('remote_tunnel_connections').select('edge_url').execute();
    expect(new Set(edges.map((e) => e.edge_url))).toEqual(new Set([b.url]));

    const host = new URL(tunnel.urlFor(Number(new URL(apps.url).port))).host;
    expect(host.endsWith(`.${shape.tunnelDomain}`), host).toBe(true);
    const asAgent = { [agentSecretHeader]: shape.internalSecret, [agentProjectHeader]: shape.tenant.projectId };
    for (const api of [a, b]) {
      const page = await requestTunnel(api.url, { host, path: '/todo/', headers: asAgent });
      expect(page.status, `${api.name}: ${page.body.toString().slice(0, 200)}`).toBe(200);
      expect(page.body.toString()).toContain('<h1>Todos</h1>');
      // Private: not to someone without the agents' secret, whichever process they reach.
      expect((await requestTunnel(api.url, { host, path: '/todo/' })).status).toBe(403);
    }
  }, 120_000);

  it('burns in a test through the API and the workers, on the tunnelled app, with the model behind its own hop', async () => {
    const b = shape.apis[1]!;
    // The environment is the tunnel's URL: the workers' browsers reach the shop only through the API processes.
    const tunnelUrl = tunnel.urlFor(Number(new URL(apps.url).port));
    const shop = { stack: b, llm: shape.llm, router: createRouter(), ...(await addShop(b, `${tunnelUrl}/shop/login`)) };
    const generated = await burnInOnShop(shop, 'Sign in', loginGoal, loginMoves);
    expect(generated).toMatchObject({ generationStatus: 'COMPLETED' });
    // Saved only after a verifying replay in a fresh browser passed, as every run replays it.
    expect(generated.steps.steps.length).toBeGreaterThan(2);
    expect(generated.recordingCheck).toMatchObject({ status: 'PASSED' });
  }, 240_000);

  it('answers a chat turn asked through one API process and read through the other', async () => {
    const [a, b] = shape.apis as [ProductionShape['apis'][0], ProductionShape['apis'][0]];
    shape.llm.reset();
    shape.llm.enqueue({ content: 'Six tests cover the Todo app, all passing.', fragmentDelayMs: 20 });
    const created = await a.call('POST', '/v1/chat', { message: 'How is the Todo app covered?' });
    expect(created.status).toBe(202);
    const poll = await pollChat(b, created.body.shortId, { timeoutMs: 120_000 });
    expect(poll.final.messages[0]).toMatchObject({
      role: 'assistant',
      status: 'COMPLETED',
      text: 'Six tests cover the Todo app, all passing.',
    });
  }, 180_000);

  it('finishes a change review: the test the model picks runs on the preview, the verdict comes back', async () => {
    const [a, b] = shape.apis as [ProductionShape['apis'][0], ProductionShape['apis'][0]];
    expect(todo.testIds, 'the Todo tests of the first test').toHaveLength(6);
    const picked = todo.testIds[0]!;
    shape.llm.reset();
    const model = reviewResponder({
      select: (prompt) => {
        expect(prompt).toContain(`- ${picked} | Add milk |`);
        return { existingTestCaseIds: [picked], newTests: [], reasoning: 'The diff changes adding items.' };
      },
      verdict: (prompt) => {
        expect(prompt).toContain('Add milk');
        return { verdict: 'Approved', summary: 'Adding an item works on the preview.', evaluationDetails: 'Ran it.' };
      },
    });
    shape.llm.enqueue(model, model);
    // QA.tech's action posts through one process; its polls land on the other.
    const outcome = await changeReviewAction(
      {
        call: (method, path, body) => (method === 'POST' ? a : b).call(method, path, body),
      },
      {
        mode: 'rawChanges',
        changes: {
          changeDescription: 'Trim the item text',
          diff: 'diff --git a/src/todo.ts b/src/todo.ts\n--- a/src/todo.ts\n+++ b/src/todo.ts\n@@ -1 +1 @@\n-add(text)\n+add(text.trim())\n',
        },
        applicationOverrides: [{ applicationShortId: todo.appShortId, environment: { url: `${apps.url}/todo/` } }],
        actor: 'octocat',
        branch: 'feature/trim',
        commitHash: 'abc123',
      },
      { timeoutMs: 180_000, intervalMs: 500 },
    );
    expect(outcome.verdict).toBe('Approved');
    expect(outcome.text).toMatch(/\| Add milk \| existing \| PASSED \|/);
  }, 240_000);
});
