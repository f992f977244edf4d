// The production shape as processes (test/support/production-shape.ts): `proctor migrate`, two `proctor api` and two
// `proctor worker` over one PostgreSQL, a Temporal server with a persistent database, MinIO and the scripted model.
// What one API process accepts, the other serves; the workers share the work; a burn-in finishes through them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRouter } from '../support/agent-script.js';
import { startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';
import { startProductionShape, type ProductionShape } from '../support/production-shape.js';
import { applicationIdOf, insertRecordedTestCase, todoSteps } from '../support/recorded.js';
import { addShop, loginGoal, loginMoves } from '../support/shop-agent-script.js';
import { burnInOnShop } from '../support/shop-stack.js';
import { waitForRun } from '../support/worker-context.js';

describe('the production shape: two API and two worker processes', () => {
  let shape: ProductionShape;
  let apps: FixtureApps;

  beforeAll(async () => {
    [shape, apps] = await Promise.all([startProductionShape(), startFixtureApps()]);
  }, 240_000);
  afterAll(async () => {
    await shape?.stop();
    await apps?.stop();
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

  it('burns in a test through the API and the workers, with the model behind its own network hop', async () => {
    const b = shape.apis[1]!;
    const shop = { stack: b, llm: shape.llm, router: createRouter(), ...(await addShop(b, `${apps.url}/shop/login`)) };
    const generated = await burnInOnShop(shop, 'Sign in', loginGoal, loginMoves);
    expect(generated).toMatchObject({ generationStatus: 'COMPLETED' });
    // Saved only after a verifying replay in a fresh browser passed, as every run replays it.
    expect(generated.steps.steps.length).toBeGreaterThan(2);
    expect(generated.recordingCheck).toMatchObject({ status: 'PASSED' });
  }, 240_000);
});
