import { beforeAll, describe, expect, it } from 'vitest';
import { insertRun } from '../../src/db/queries/runs.js';
import { databaseKinds, useApiContext } from '../support/app-context.js';
import { rowIdOf } from '../support/row-ids.js';

describe.each(databaseKinds)('GET /v1/run (%s)', (kind) => {
  const ctx = useApiContext(kind);
  let planShortId: string;
  const mine: string[] = [];

  beforeAll(async () => {
    const plan = (await ctx.call('POST', '/v1/test-plans', { name: 'Smoke' })).body;
    planShortId = plan.shortId;
    const planId = await rowIdOf(ctx.db, 'test_plans', planShortId);
    for (const [i, trigger] of ['API', 'SCHEDULE', 'GITHUB'].entries()) {
      const run = await insertRun(ctx.db, {
        projectId: ctx.tenant.projectId,
        planId: i === 0 ? null : planId,
        meta: { trigger, branch: `b${i}` },
        tests: [],
      });
      await ctx.db
        .updateTable('runs')
        .set({ created_at: new Date(Date.UTC(2026, 10, 1 + i)), status: i === 2 ? 'COMPLETED' : 'RUNNING' })
        .where('id', '=', run.id)
        .execute();
      mine.push(run.shortId);
    }
    await insertRun(ctx.db, { projectId: ctx.other.projectId, planId: null, meta: { trigger: 'API' }, tests: [] });
  });

  it("lists the project's runs, newest first, with filters and paging", async () => {
    const all = await ctx.call('GET', '/v1/run');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 3, limit: 20, offset: 0 });
    expect(all.body.runs.map((r: any) => r.shortId)).toEqual([...mine].reverse());
    expect(all.body.runs[0]).toMatchObject({
      trigger: 'GITHUB',
      branch: 'b2',
      status: 'COMPLETED',
      testPlan: { name: 'Smoke', shortId: planShortId },
    });

    const byPlan = await ctx.call('GET', `/v1/run?testPlanShortId=${planShortId}`);
    expect(byPlan.body.total).toBe(2);
    const running = await ctx.call('GET', '/v1/run?status=RUNNING&limit=1&offset=1');
    expect(running.body).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(running.body.runs.map((r: any) => r.shortId)).toEqual([mine[0]]);
  });

  it('refuses bad filters and hides other projects', async () => {
    expect((await ctx.call('GET', '/v1/run?limit=101')).status).toBe(400);
    expect((await ctx.call('GET', '/v1/run?status=DONE')).status).toBe(400);
    expect((await ctx.call('GET', '/v1/run?testPlanShortId=pln_missing')).status).toBe(404);
    const theirs = await ctx.call('GET', '/v1/run', undefined, ctx.other.token);
    expect(theirs.body.total).toBe(1);
    expect(theirs.body.runs[0].shortId).not.toBeOneOf(mine);
    expect((await ctx.call('GET', `/v1/run?testPlanShortId=${planShortId}`, undefined, ctx.other.token)).status).toBe(
      404,
    );
  });
});
