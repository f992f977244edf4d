import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeFeedOf } from '../../src/db/database.js';
import { newId } from '../../src/ids.js';
import { applicationIdOf } from '../support/recorded.js';
import { databaseKinds, terminateBurnIns, writeFromElsewhere, useApiContext } from '../support/app-context.js';

// `GET /v1/test-cases` and `GET /v1/applications` are answered from memory; these check that every way what
// they show can change shows in the next answers: at once when this process wrote it, within moments when
// another process did.
describe.each(databaseKinds)('the test case and application lists stay exact (%s)', (kind) => {
  const ctx = useApiContext(kind);
  let shop: string;
  let shopId: string;
  let ids: string[];
  /** Test cases created through POST: their burn-in workflows are terminated after the file. */
  const created: string[] = [];

  beforeAll(async () => {
    shop = (await ctx.call('POST', '/v1/applications', { name: 'Shop', kind: 'web' })).body.shortId;
    shopId = await applicationIdOf(ctx.db, shop);
    ids = [newId(), newId(), newId()];
    // Oldest first, so the list (newest first) shows them in reverse.
    for (const [i, id] of ids.entries()) {
      await ctx.db
        .insertInto('test_cases')
        .values({
          id,
          project_id: ctx.tenant.projectId,
          application_id: shopId,
          name: `Checkout ${i + 1}`,
          goal: 'Buy a mug',
          labels: i === 0 ? ['smoke'] : [],
          is_enabled: true,
          generation_status: 'COMPLETED',
          created_at: new Date(Date.UTC(2026, 10, 23, 12, i)),
        })
        .execute();
    }
  });
  afterAll(async () => {
    await terminateBurnIns(ctx, created);
  });

  const get = async (path: string, token?: string) => {
    const res = await ctx.call('GET', path, undefined, token);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const names = async (query = '') => {
    const list = await get(`/v1/test-cases${query}`);
    return { names: list.testCases.map((t: any) => t.name), total: list.total };
  };
  const application = async (shortId: string) =>
    (await get('/v1/applications')).applications.find((a: any) => a.shortId === shortId);
  /** Polls until `check` passes, for at most 3 s (no expiry does it: only a notification can). */
  const eventually = async (check: () => Promise<void>) => {
    const deadline = Date.now() + 3_000;
    for (;;) {
      try {
        return await check();
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  };

  it('is listening before the checks below start', async () => {
    await get('/v1/test-cases');
    const feed = changeFeedOf(ctx.db)!;
    const deadline = Date.now() + 3_000;
    while (!feed.listening && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(feed.listening).toBe(true);
  });

  it('answers from memory: a change the triggers are not told of stays unseen', async () => {
    // The proof that the lists below are cached at all. With `session_replication_role = replica` (how logical
    // replication applies changes) Postgres fires no ordinary trigger, and raw SQL is not seen as a local write.
    expect(await names()).toEqual({ names: ['Checkout 3', 'Checkout 2', 'Checkout 1'], total: 3 });
    await ctx.db.transaction().execute(async (trx) => {
      await sql`set local session_replication_role = replica`.execute(trx);
      await sql`update test_cases set name = 'Unannounced' where id = ${ids[2]}`.execute(trx);
    });
    expect((await names()).names).toEqual(['Checkout 3', 'Checkout 2', 'Checkout 1']);
    // A write that is told of brings the list back in line.
    expect((await ctx.call('PATCH', `/v1/test-cases/${ids[2]}`, { name: 'Checkout 3' })).status).toBe(200);
    expect((await names()).names).toEqual(['Checkout 3', 'Checkout 2', 'Checkout 1']);
  });

  it('shows writes through the API in the very next answer, in every filtered list', async () => {
    expect(await names('?labels=smoke')).toEqual({ names: ['Checkout 1'], total: 1 });
    expect(await names('?isEnabled=false')).toEqual({ names: [], total: 0 });
    expect(await names(`?applicationShortId=${shop}&limit=1`)).toEqual({ names: ['Checkout 3'], total: 3 });

    expect(
      (
        await ctx.call('PATCH', `/v1/test-cases/${ids[1]}`, {
          name: 'Checkout two',
          labels: ['smoke'],
          isEnabled: false,
        })
      ).status,
    ).toBe(200);
    expect(await names('?labels=smoke')).toEqual({ names: ['Checkout two', 'Checkout 1'], total: 2 });
    expect(await names('?isEnabled=false')).toEqual({ names: ['Checkout two'], total: 1 });

    // Renaming the application shows in the test case list too.
    expect((await ctx.call('PATCH', `/v1/applications/${shop}`, { name: 'Web shop' })).status).toBe(200);
    expect((await get('/v1/test-cases?limit=1')).testCases[0]).toMatchObject({
      applicationShortId: shop,
      applicationName: 'Web shop',
    });
    expect((await application(shop)).name).toBe('Web shop');

    const made = await ctx.call('POST', '/v1/test-cases', {
      name: 'Refund',
      goal: 'Refund the mug',
      applicationShortId: shop,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    created.push(made.body.testCase.id);
    expect(await names(`?applicationShortId=${shop}&limit=1`)).toEqual({ names: ['Refund'], total: 4 });
    expect((await ctx.call('DELETE', `/v1/test-cases/${made.body.testCase.id}`)).status).toBe(200);
    expect(await names(`?applicationShortId=${shop}&limit=1`)).toEqual({ names: ['Checkout 3'], total: 3 });

    const admin = (await ctx.call('POST', '/v1/applications', { name: 'Admin', kind: 'web' })).body.shortId;
    expect(await application(admin)).toMatchObject({ name: 'Admin', defaultEnvironmentShortId: null });
    const env = (
      await ctx.call('POST', `/v1/applications/${admin}/environments`, {
        name: 'Staging',
        url: 'https://admin.example.com',
      })
    ).body.shortId;
    expect((await application(admin)).defaultEnvironmentShortId).toBe(env);
    expect((await ctx.call('DELETE', `/v1/applications/${admin}`)).status).toBe(200);
    expect(await application(admin)).toBeUndefined();
  });

  it("shows writes made through this process's database handle at once, not only through the API", async () => {
    expect((await get('/v1/test-cases?limit=1')).testCases[0].generationStatus).toBe('COMPLETED');
    // As a worker in the same process (`proctor dev`) records a burn-in's outcome.
    await ctx.db.updateTable('test_cases').set({ generation_status: 'FAILED' }).where('id', '=', ids[2]!).execute();
    expect((await get('/v1/test-cases?limit=1')).testCases[0].generationStatus).toBe('FAILED');
    await ctx.db.updateTable('test_cases').set({ generation_status: 'COMPLETED' }).where('id', '=', ids[2]!).execute();
    expect((await get('/v1/test-cases?limit=1')).testCases[0].generationStatus).toBe('COMPLETED');
  });

  it('follows writes made elsewhere: another process, a replica, plain SQL', async () => {
    const elsewhere = (query: string, values: unknown[]) => writeFromElsewhere(ctx.db, query, values);
    expect((await names()).total).toBe(3);

    await elsewhere("update test_cases set name = 'Checkout three', generation_status = 'GENERATING' where id = $1", [
      ids[2],
    ]);
    await eventually(async () =>
      expect((await get('/v1/test-cases?limit=1')).testCases[0]).toMatchObject({
        name: 'Checkout three',
        generationStatus: 'GENERATING',
      }),
    );

    await elsewhere(
      "insert into test_cases (id, project_id, application_id, name, goal, labels, is_enabled, generation_status) values ($1, $2, $3, 'Wishlist', 'Save the mug', '{smoke}', true, 'COMPLETED')",
      [newId(), ctx.tenant.projectId, shopId],
    );
    await eventually(async () =>
      expect(await names('?labels=smoke')).toEqual({ names: ['Wishlist', 'Checkout two', 'Checkout 1'], total: 3 }),
    );

    // The application's default environment is deleted behind the API's back: no foreign key updates the
    // application, so only the environment's own trigger can tell.
    const env = (
      await ctx.call('POST', `/v1/applications/${shop}/environments`, {
        name: 'Production',
        url: 'https://shop.example.com',
      })
    ).body.shortId;
    expect((await application(shop)).defaultEnvironmentShortId).toBe(env);
    await elsewhere('delete from environments where short_id = $1', [env]);
    await eventually(async () => expect((await application(shop)).defaultEnvironmentShortId).toBeNull());

    await elsewhere('delete from test_cases where project_id = $1 and name = $2', [ctx.tenant.projectId, 'Wishlist']);
    await eventually(async () => expect((await names()).total).toBe(3));
  });

  it("never shows one project's lists to another", async () => {
    await get('/v1/test-cases');
    await get('/v1/applications');
    expect(await get('/v1/test-cases', ctx.other.token)).toEqual({ testCases: [], total: 0, limit: 50, offset: 0 });
    expect(await get('/v1/applications', ctx.other.token)).toEqual({ applications: [] });
    const theirs = (await ctx.call('POST', '/v1/applications', { name: 'Theirs', kind: 'web' }, ctx.other.token)).body
      .shortId;
    expect((await get('/v1/applications', ctx.other.token)).applications.map((a: any) => a.shortId)).toEqual([theirs]);
    expect((await get('/v1/applications')).applications.map((a: any) => a.shortId)).not.toContain(theirs);
    // An application filter naming another project's application is a 404, cached list or not.
    expect(
      (await ctx.call('GET', `/v1/test-cases?applicationShortId=${shop}`, undefined, ctx.other.token)).status,
    ).toBe(404);
  });
});
