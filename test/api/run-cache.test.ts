import { beforeAll, describe, expect, it } from 'vitest';
import { changeFeedOf } from '../../src/db/database.js';
import { insertRun } from '../../src/db/queries/runs.js';
import { newId } from '../../src/ids.js';
import { applicationIdOf, insertTestCaseRow } from '../support/recorded.js';
import { databaseKinds, writeFromElsewhere, useApiContext } from '../support/app-context.js';
import { rowIdOf } from '../support/row-ids.js';

// A run that has ended is answered from memory; these check that every way its answer can still change
// shows in the next answers, whoever writes it.
describe.each(databaseKinds)('GET /v1/run/{shortId} of an ended run stays exact (%s)', (kind) => {
  const ctx = useApiContext(kind);
  let planId: string;
  let planShortId: string;
  let testCaseIds: string[];

  beforeAll(async () => {
    const app = (await ctx.call('POST', '/v1/applications', { name: 'Shop', kind: 'web' })).body;
    const applicationId = await applicationIdOf(ctx.db, app.shortId);
    testCaseIds = [];
    for (const name of ['Checkout 1', 'Checkout 2'])
      testCaseIds.push(
        await insertTestCaseRow(
          ctx.db,
          { projectId: ctx.tenant.projectId, applicationId },
          { id: newId(), name, goal: 'Buy a mug', labels: [], is_enabled: true, generation_status: 'COMPLETED' },
        ),
      );
    planShortId = (await ctx.call('POST', '/v1/test-plans', { name: 'Nightly', testCaseIds })).body.shortId;
    planId = await rowIdOf(ctx.db, 'test_plans', planShortId);
  });

  const elsewhere = (query: string, values: unknown[]) => writeFromElsewhere(ctx.db, query, values);
  const get = async (shortId: string, query = '') => {
    const res = await ctx.call('GET', `/v1/run/${shortId}${query}`);
    expect(res.status).toBe(200);
    return res.body;
  };
  /** Polls until `check` passes on the answer, for at most 3 s (far below any expiry: only a notification does it). */
  const eventually = async (shortId: string, check: (run: any) => void, query = '') => {
    const deadline = Date.now() + 3_000;
    for (;;) {
      const run = await get(shortId, query);
      try {
        check(run);
        return run;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  };

  async function endedRun(): Promise<{ id: string; shortId: string }> {
    const testCases = await ctx.db.selectFrom('test_cases').selectAll().where('id', 'in', testCaseIds).execute();
    const run = await insertRun(ctx.db, {
      projectId: ctx.tenant.projectId,
      planId,
      meta: { trigger: 'GITHUB' },
      tests: testCases.map((testCase) => ({
        testCase,
        inPlan: true,
        environmentUrl: 'https://shop.example.com',
        device: null,
      })),
    });
    const done = new Date('2026-11-23T12:00:00Z');
    await ctx.db
      .updateTable('run_test_cases')
      .set({ status: 'COMPLETED', result: 'PASSED', result_title: 'Passed', started_at: done, finished_at: done })
      .where('run_id', '=', run.id)
      .execute();
    await ctx.db
      .updateTable('runs')
      .set({ status: 'COMPLETED', result: 'PASSED', started_at: done, finished_at: done })
      .where('id', '=', run.id)
      .execute();
    return run;
  }

  it('is listening before the checks below start', async () => {
    await get((await endedRun()).shortId);
    const feed = changeFeedOf(ctx.db)!;
    const deadline = Date.now() + 3_000;
    while (!feed.listening && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(feed.listening).toBe(true);
  });

  it('shows a rewritten run row and a rewritten test at once', async () => {
    const run = await endedRun();
    const first = await get(run.shortId, '?testCases=all');
    expect(first).toMatchObject({
      status: 'COMPLETED',
      result: 'PASSED',
      finishedAt: '2026-11-23T12:00:00.000Z',
      testPlan: { name: 'Nightly', shortId: planShortId },
    });
    expect(first.runTestCases.map((t: any) => t.resultTitle)).toEqual(['Passed', 'Passed']);
    expect(await get(run.shortId, '?testCases=all')).toEqual(first);
    expect((await get(run.shortId, '?testCases=failed')).runTestCases).toEqual([]);

    // A retried finishRun activity in a worker rewrites finished_at; a test row is corrected by hand.
    await elsewhere("update runs set finished_at = '2026-11-23T12:05:00Z', result = 'FAILED' where id = $1", [run.id]);
    await eventually(
      run.shortId,
      (r) => expect(r).toMatchObject({ finishedAt: '2026-11-23T12:05:00.000Z', result: 'FAILED' }),
      '?testCases=all',
    );
    await elsewhere(
      "update run_test_cases set result = 'FAILED', result_title = 'Mug missing' where run_id = $1 and name = 'Checkout 2'",
      [run.id],
    );
    const failed = await eventually(
      run.shortId,
      (r) => expect(r.runTestCases.map((t: any) => t.resultTitle)).toEqual(['Mug missing']),
      '?testCases=failed',
    );
    expect(failed.runTestCases[0]).toMatchObject({ name: 'Checkout 2', result: 'FAILED' });
    await eventually(
      run.shortId,
      (r) => expect(r.runTestCases.map((t: any) => t.resultTitle)).toEqual(['Passed', 'Mug missing']),
      '?testCases=all',
    );
  });

  it("follows its plan's rename, through the API (the next answer) and elsewhere, and its deletion", async () => {
    const run = await endedRun();
    expect((await get(run.shortId)).testPlan).toEqual({ name: 'Nightly', shortId: planShortId });
    expect((await ctx.call('PATCH', `/v1/test-plans/${planShortId}`, { name: 'Nightly (all)' })).status).toBe(200);
    expect((await get(run.shortId)).testPlan).toEqual({ name: 'Nightly (all)', shortId: planShortId });
    await elsewhere("update test_plans set name = 'Renamed by SQL' where id = $1", [planId]);
    await eventually(run.shortId, (r) => expect(r.testPlan).toEqual({ name: 'Renamed by SQL', shortId: planShortId }));

    const other = await ctx.call('POST', '/v1/test-plans', { name: 'Doomed', testCaseIds });
    const otherId = await rowIdOf(ctx.db, 'test_plans', other.body.shortId);
    const doomed = await insertRun(ctx.db, {
      projectId: ctx.tenant.projectId,
      planId: otherId,
      meta: { trigger: 'API' },
      tests: [],
    });
    await ctx.db
      .updateTable('runs')
      .set({ status: 'CANCELLED', finished_at: new Date() })
      .where('id', '=', doomed.id)
      .execute();
    expect((await get(doomed.shortId)).testPlan).toEqual({ name: 'Doomed', shortId: other.body.shortId });
    await elsewhere('delete from test_plans where id = $1', [otherId]);
    await eventually(doomed.shortId, (r) => expect(r.testPlan).toBeNull());
  });

  it('answers a run that has not ended from the database every time', async () => {
    const run = await insertRun(ctx.db, {
      projectId: ctx.tenant.projectId,
      planId,
      meta: { trigger: 'API' },
      tests: [],
    });
    expect((await get(run.shortId)).status).toBe('INITIATED');
    await ctx.db.updateTable('runs').set({ status: 'RUNNING' }).where('id', '=', run.id).execute();
    expect((await get(run.shortId)).status).toBe('RUNNING');
    await ctx.db.updateTable('runs').set({ status: 'ERROR', error: 'worker lost' }).where('id', '=', run.id).execute();
    await eventually(run.shortId, (r) => expect(r).toMatchObject({ status: 'ERROR', error: 'worker lost' }));
  });

  it("never shows another project's run, cached or not", async () => {
    const run = await endedRun();
    await get(run.shortId);
    const theirs = await ctx.call('GET', `/v1/run/${run.shortId}`, undefined, ctx.other.token);
    expect(theirs.status).toBe(404);
  });
});
