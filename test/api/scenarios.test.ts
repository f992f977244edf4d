import { describe, expect, it } from 'vitest';
import { applicationIdOf, insertTestCaseRow } from '../support/recorded.js';
import { databaseKinds, useApiContext } from '../support/app-context.js';
import { expectBadRequests } from '../support/bad-requests.js';
import { expectHiddenFromCaller } from '../support/unknown-ids.js';
import { rowIdOf } from '../support/row-ids.js';

describe.each(databaseKinds)('scenarios (%s)', (kind) => {
  const ctx = useApiContext(kind);

  const names = async () =>
    (await ctx.call('GET', '/v1/scenarios')).body.scenarios.map((s: { name: string }) => s.name);

  it('creates, lists, gets, updates and deletes a scenario', async () => {
    const created = await ctx.call('POST', '/v1/scenarios', {
      name: 'Signed-in customer',
      description: 'A customer account with saved addresses',
      instructions: 'Sign in as {{LOGIN_EMAIL}} with {{LOGIN_PASSWORD}}.',
    });
    expect(created.status).toBe(201);
    expect(created.body.shortId).toMatch(/^scenario_.+$/);
    expect(created.body).toMatchObject({
      name: 'Signed-in customer',
      description: 'A customer account with saved addresses',
      instructions: 'Sign in as {{LOGIN_EMAIL}} with {{LOGIN_PASSWORD}}.',
    });
    expect(Object.keys(created.body).sort()).toEqual([
      'createdAt',
      'description',
      'instructions',
      'name',
      'shortId',
      'updatedAt',
    ]);

    expect((await ctx.call('GET', `/v1/scenarios/${created.body.shortId}`)).body).toEqual(created.body);
    expect((await ctx.call('GET', '/v1/scenarios')).body.scenarios).toContainEqual(created.body);

    const updated = await ctx.call('PATCH', `/v1/scenarios/${created.body.shortId}`, {
      instructions: 'Sign in, then empty the cart.',
      description: null,
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      name: 'Signed-in customer',
      description: null,
      instructions: 'Sign in, then empty the cart.',
    });
    expect((await ctx.call('GET', `/v1/scenarios/${created.body.shortId}`)).body).toEqual(updated.body);

    expect((await ctx.call('DELETE', `/v1/scenarios/${created.body.shortId}`)).body).toEqual({ deleted: true });
    const gone = await ctx.call('GET', `/v1/scenarios/${created.body.shortId}`);
    expect(gone.status).toBe(404);
    expect(gone.body.message).toBe('Scenario not found');
    expect(await names()).not.toContain('Signed-in customer');
  });

  it('validates input with a message naming the field, and writes nothing', async () => {
    const before = await names();
    const cases: [unknown, RegExp][] = [
      [{ instructions: 'Do it' }, /name/],
      [{ name: '   ', instructions: 'Do it' }, /name/],
      [{ name: 'N'.repeat(81), instructions: 'Do it' }, /name/],
      [{ name: 'No instructions' }, /instructions/],
      [{ name: 'Blank instructions', instructions: '  ' }, /instructions/],
      [{ name: 'Bad description', instructions: 'Do it', description: 7 }, /description/],
    ];
    await expectBadRequests((body) => ctx.call('POST', '/v1/scenarios', body), cases);
    expect(await names()).toEqual(before);

    const scenario = (await ctx.call('POST', '/v1/scenarios', { name: 'Kept', instructions: 'Keep me' })).body;
    const cleared = await ctx.call('PATCH', `/v1/scenarios/${scenario.shortId}`, { name: 'Changed', instructions: '' });
    expect(cleared.status).toBe(400);
    expect(cleared.body.message).toMatch(/instructions/);
    expect((await ctx.call('GET', `/v1/scenarios/${scenario.shortId}`)).body).toMatchObject({
      name: 'Kept',
      instructions: 'Keep me',
    });
  });

  it('leaves test cases without a scenario when it is deleted', async () => {
    const app = (await ctx.call('POST', '/v1/applications', { name: 'Shop' })).body;
    const applicationId = await applicationIdOf(ctx.db, app.shortId);
    const scenario = (await ctx.call('POST', '/v1/scenarios', { name: 'Used', instructions: 'Sign in' })).body;
    const scenarioId = await rowIdOf(ctx.db, 'scenarios', scenario.shortId);
    const testCaseId = await insertTestCaseRow(
      ctx.db,
      { projectId: ctx.tenant.projectId, applicationId },
      { name: 'Checkout', goal: 'Buy', scenario_id: scenarioId },
    );

    expect((await ctx.call('DELETE', `/v1/scenarios/${scenario.shortId}`)).status).toBe(200);
    const row = await ctx.db
      .selectFrom('test_cases')
      .select('scenario_id')
      .where('id', '=', testCaseId)
      .executeTakeFirstOrThrow();
    expect(row.scenario_id).toBeNull();
  });

  it("hides another project's scenarios (404 on every route) and lists only the caller's", async () => {
    const theirs = (
      await ctx.call('POST', '/v1/scenarios', { name: 'Their scenario', instructions: 'Theirs' }, ctx.other.token)
    ).body;
    const still = await expectHiddenFromCaller(ctx, {
      path: '/v1/scenarios',
      shortId: theirs.shortId,
      message: 'Scenario not found',
      patches: [{ name: 'Mine now' }],
    });
    expect(await names()).not.toContain('Their scenario');
    expect(still).toEqual(theirs);
  });
});
