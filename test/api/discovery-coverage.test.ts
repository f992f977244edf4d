import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDiscovery } from '../../src/db/queries/discoveries.js';
import type { TestResult } from '../../src/db/schema.js';
import type { MapPattern } from '../../src/domain/coverage.js';
import { newShortId } from '../../src/ids.js';
import { writeDiscoverySuggestions } from '../../src/services/discovery-suggestions.js';
import { databaseKinds, terminateBurnIns, useApiContext } from '../support/app-context.js';
import { base, buy, orderNote, shopMap, signIn } from '../support/coverage-fixture.js';
import { insertDiscoveryRows, insertFinishedRun } from '../support/discovery-rows.js';
import { applicationIdOf, insertRecordedTestCase } from '../support/recorded.js';

// The coverage map and the suggested tests over HTTP (issue 34). The shop of test/support/coverage-fixture.ts is
// written as a completed discovery's rows (every page links the header's six pages; a product, the checkout and an
// order are a link further), its three tests as burn-in leaves them. Every number below is counted by hand:
//   patterns (9): covered 7 (all but / and /orders); acted on 5 (/login, /products/{id}, /cart, /checkout,
//     /orders/{id}); asserted 4 (/products, /checkout, /orders/{id}, /settings); each test's steps per pattern below.
//   forms (7): covered 4 (Sign in, Add to cart, Checkout, Add a note); submitted 3 (not Checkout); asserted 4.
// Suggestions (no model here: the map's plain words): Coupon (/cart, POST, depth 1: score 146), Profile (/settings,
// 146, after /cart by start page), Search (on /, 82), then the page /orders (61: eight patterns link to it).

const nav = ['/', '/login', '/products', '/cart', '/orders', '/settings'];
const links = { '/products': ['/products/42'], '/cart': ['/checkout'], '/orders': ['/orders/7', '/returns'] };
const startUrl = `${base}/`;

/** The second discovery found a returns page with a form: the one thing it has to suggest. */
const returns: MapPattern = {
  pattern: '/returns',
  example: '/returns',
  title: 'Returns',
  status: 200,
  forms: [
    {
      key: 'returns:order',
      name: 'Return an item',
      method: 'post',
      action: '/returns',
      fields: [{ label: 'Order number', name: 'order', type: 'text', required: true }],
      submit: 'Request return',
      search: false,
    },
  ],
};

describe.each(databaseKinds)('coverage and suggestions API (%s)', (kind) => {
  const ctx = useApiContext(kind);
  let shop: string;
  let applicationId: string;
  const ids: Record<string, string> = {};
  const burnIns: string[] = [];

  beforeAll(async () => {
    const app = await ctx.call('POST', '/v1/applications', { name: 'Shop' });
    expect(app.status).toBe(201);
    shop = app.body.shortId as string;
    applicationId = await applicationIdOf(ctx.db, shop);
    const projectId = ctx.tenant.projectId;
    const add = (name: string, steps: typeof signIn.steps, resumeFrom?: string) =>
      insertRecordedTestCase(ctx.db, { projectId, applicationId, name, steps: [...steps], resumeFrom });
    ids.signIn = await add(signIn.name, [
      { action: 'navigate', value: '/login', description: 'Open the sign-in' },
      ...signIn.steps,
    ]);
    ids.buy = await add(buy.name, buy.steps);
    const opener = await add('Open order 7', [{ action: 'navigate', value: '/orders/7', description: 'Open it' }]);
    await ctx.db.updateTable('test_cases').set({ is_enabled: false }).where('id', '=', opener).execute();
    ids.note = await add(orderNote.name, orderNote.steps, opener);
    const off = await add('Coupon (disabled)', [
      { action: 'fill', locator: "getByLabel('Coupon code')", value: 'X', description: 'x', at: '/cart' },
    ]);
    await ctx.db.updateTable('test_cases').set({ is_enabled: false }).where('id', '=', off).execute();
    await runOf(ids.signIn, '2026-11-19', 'PASSED');
    await runOf(ids.signIn, '2026-11-20', 'PASSED');
    await runOf(ids.signIn, '2026-11-21', 'FAILED');
    await runOf(ids.buy, '2026-11-25', 'PASSED');
  });
  afterAll(async () => {
    await terminateBurnIns(ctx, burnIns);
  });

  const runOf = (testCaseId: string, day: string, result: TestResult) =>
    insertFinishedRun(ctx.db, {
      projectId: ctx.tenant.projectId,
      applicationId,
      testCaseId,
      name: 'a test',
      day,
      result,
    });

  const discovery = (map: readonly MapPattern[], opts: { status?: 'RUNNING' | 'COMPLETED'; finishedAt?: Date } = {}) =>
    insertDiscoveryRows(ctx.db, {
      projectId: ctx.tenant.projectId,
      applicationId,
      startUrl,
      map,
      nav,
      links,
      ...opts,
    });

  /** Writes the suggestions as the workflow's activity does when the discovery completes (no model here). */
  async function suggest(id: string) {
    const row = await getDiscovery(ctx.db, id);
    return writeDiscoverySuggestions(ctx.deps, undefined, row!);
  }

  let first: { id: string; shortId: string };

  it('answers 404 naming the fix while the application has no completed discovery', async () => {
    await discovery(shopMap, { status: 'RUNNING' });
    const res = await ctx.call('GET', `/v1/applications/${shop}/coverage`);
    expect(res.status).toBe(404);
    expect(res.body.message).toBe(
      `Coverage not found: application Shop has no COMPLETED discovery to map its pages: start one (POST /v1/applications/${shop}/discoveries) and ask again once it has completed`,
    );
  });

  it("counts the latest completed discovery's map as the hand count does", async () => {
    // An older completed discovery of the home page only: the newer one is the map.
    await discovery([shopMap[0]!], { finishedAt: new Date('2026-11-01T00:00:00Z') });
    first = await discovery(shopMap, { finishedAt: new Date('2026-11-26T00:00:00Z') });
    const res = await ctx.call('GET', `/v1/applications/${shop}/coverage`);
    expect(res.status).toBe(200);
    const body = res.body;
    expect(body.discovery.shortId).toBe(first.shortId);
    expect(body.totals).toEqual({
      patterns: { total: 9, covered: 7, uncovered: 2, actedOn: 5, asserted: 4 },
      forms: { total: 7, covered: 4, uncovered: 3, submitted: 3, asserted: 4 },
    });
    type Use = { testId: string; steps: number[]; lastPassedAt: string | null };
    const uses = (list: Use[]) => list.map((u) => [u.testId, u.steps]);
    const pattern = (p: string) => body.patterns.find((x: { pattern: string }) => x.pattern === p);
    // Per pattern: [visited by, acted on by, asserted by], as [test, its steps].
    const sign = ids.signIn!;
    const buyer = ids.buy!;
    const note = ids.note!;
    const expected: Record<string, [unknown[], unknown[], unknown[], string | null]> = {
      '/': [[], [], [], null],
      '/login': [[[sign, [0, 1, 2, 3]]], [[sign, [1, 2, 3]]], [], '2026-11-20T10:00:00.000Z'],
      '/products': [[[sign, [4, 5]]], [], [[sign, [4, 5]]], '2026-11-20T10:00:00.000Z'],
      '/products/{id}': [[[buyer, [0, 1, 2]]], [[buyer, [1, 2]]], [], '2026-11-25T10:00:00.000Z'],
      '/cart': [[[buyer, [3, 4]]], [[buyer, [4]]], [], '2026-11-25T10:00:00.000Z'],
      '/checkout': [[[buyer, [5, 6, 7]]], [[buyer, [5, 6]]], [[buyer, [7]]], '2026-11-25T10:00:00.000Z'],
      '/orders': [[], [], [], null],
      '/orders/{id}': [[[note, [0, 1, 4, 5]]], [[note, [0, 1]]], [[note, [5]]], null],
      '/settings': [[[note, [2, 3]]], [], [[note, [3]]], null],
    };
    expect(body.patterns.map((p: { pattern: string }) => p.pattern).sort()).toEqual(Object.keys(expected).sort());
    for (const [p, [visited, acted, asserted, last]] of Object.entries(expected)) {
      const got = pattern(p);
      expect([p, uses(got.visitedBy), uses(got.actedOnBy), uses(got.assertedBy), got.lastPassedAt]).toEqual([
        p,
        visited,
        acted,
        asserted,
        last,
      ]);
      expect(got.covered).toBe(visited.length > 0);
    }
    const form = (name: string) => body.forms.find((f: { name: string }) => f.name === name);
    // Per form: [acted on by, submitted by, asserted by] (tests only), covered.
    const forms: Record<string, [string[], string[], string[]]> = {
      Search: [[], [], []],
      'Sign in': [[sign], [sign], [sign]],
      'Add to cart': [[buyer], [buyer], [buyer]],
      Coupon: [[], [], []],
      Checkout: [[buyer], [], [buyer]],
      'Add a note': [[note], [note], [note]],
      Profile: [[], [], []],
    };
    expect(body.forms.map((f: { name: string }) => f.name).sort()).toEqual(Object.keys(forms).sort());
    const testsOf = (list: Use[]) => list.map((u) => u.testId);
    for (const [name, [acted, submitted, asserted]] of Object.entries(forms)) {
      const got = form(name);
      expect([name, testsOf(got.actedOnBy), testsOf(got.submittedBy), testsOf(got.assertedBy)]).toEqual([
        name,
        acted,
        submitted,
        asserted,
      ]);
      expect(got.covered).toBe(acted.length > 0);
    }
    expect(form('Search').patterns).toEqual(['/', '/products', '/products/{id}']);
    expect(body.outsideMap).toEqual([{ pattern: '/help', testIds: [note] }]);
  });

  it('lists the suggestions best first, in plain words without a model', async () => {
    expect(await suggest(first.id)).toEqual({ written: 4, calls: 0, fallback: 'no model is configured' });
    // A retried activity writes nothing twice.
    expect(await suggest(first.id)).toEqual({ written: 0, calls: 0 });
    const res = await ctx.call('GET', `/v1/discoveries/${first.shortId}/suggestions`);
    expect(res.status).toBe(200);
    const list = res.body.suggestions as Record<string, unknown>[];
    expect(list.map((s) => [s.rank, s.name, s.startUrl, s.status, s.testCaseId])).toEqual([
      [1, 'Submit "Coupon" on /cart', '/cart', 'PROPOSED', null],
      [2, 'Submit "Profile" on /settings', '/settings', 'PROPOSED', null],
      [3, 'Search with "Search" on /', '/', 'PROPOSED', null],
      [4, 'Open Orders', '/orders', 'PROPOSED', null],
    ]);
    expect(list[0]!.covers).toEqual({ patterns: ['/cart'], forms: ['coupon:code@/cart/coupon'] });
    expect(list[3]!.covers).toEqual({ patterns: ['/orders'], forms: [] });
    for (const s of list) expect(s.reason).toMatch(/\(written without the model: no model is configured\)$/);
  });

  it('rejects once; a later discovery does not propose it again', async () => {
    const list = (await ctx.call('GET', `/v1/discoveries/${first.shortId}/suggestions`)).body.suggestions;
    const coupon = list[0].id as string;
    const path = (what: string) => `/v1/discoveries/${first.shortId}/suggestions/${coupon}/${what}`;
    const res = await ctx.call('POST', path('reject'));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: coupon, status: 'REJECTED', testCaseId: null });
    expect(res.body.decidedAt).toEqual(expect.any(String));
    for (const what of ['reject', 'accept']) {
      const again = await ctx.call('POST', path(what));
      expect(again.status).toBe(409);
      expect(again.body.message).toBe(`Suggestion ${coupon} was rejected already; a suggestion is decided once`);
    }
    // The next discovery finds the same shop and a returns page: only the returns form is new to the project.
    const second = await discovery([...shopMap, returns]);
    expect(await suggest(second.id)).toMatchObject({ written: 1 });
    const next = await ctx.call('GET', `/v1/discoveries/${second.shortId}/suggestions`);
    expect(next.body.suggestions.map((s: { name: string; rank: number }) => [s.rank, s.name])).toEqual([
      [1, 'Submit "Return an item" on /returns'],
    ]);
    // The coverage is now read from the second discovery's map: ten patterns, eight forms.
    const coverage = await ctx.call('GET', `/v1/applications/${shop}/coverage`);
    expect(coverage.body.discovery.shortId).toBe(second.shortId);
    expect(coverage.body.totals.patterns).toMatchObject({ total: 10, covered: 7, uncovered: 3 });
    expect(coverage.body.totals.forms).toMatchObject({ total: 8, covered: 4, uncovered: 4 });
  });

  it("another application of the project with the same pages gets its own suggestions, the other's decisions aside", async () => {
    const mirror = await ctx.call('POST', '/v1/applications', { name: 'Shop mirror' });
    expect(mirror.status).toBe(201);
    const found = await insertDiscoveryRows(ctx.db, {
      projectId: ctx.tenant.projectId,
      applicationId: await applicationIdOf(ctx.db, mirror.body.shortId),
      startUrl,
      map: shopMap,
      nav,
      links,
    });
    await suggest(found.id);
    const names = (await ctx.call('GET', `/v1/discoveries/${found.shortId}/suggestions`)).body.suggestions.map(
      (s: { name: string }) => s.name,
    );
    // Rejected and still pending for the Shop; for the mirror, which no test covers, they are new.
    expect(names).toEqual(expect.arrayContaining(['Submit "Coupon" on /cart', 'Submit "Profile" on /settings']));
  });

  it('accepts once: the test case is created as POST /v1/test-cases does and its burn-in starts', async () => {
    const list = (await ctx.call('GET', `/v1/discoveries/${first.shortId}/suggestions`)).body.suggestions;
    const profile = list[1];
    const path = `/v1/discoveries/${first.shortId}/suggestions/${profile.id}/accept`;
    const res = await ctx.call('POST', path);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: profile.id, status: 'ACCEPTED', name: profile.name });
    const testCaseId = res.body.testCaseId as string;
    burnIns.push(testCaseId);
    const row = await ctx.db
      .selectFrom('test_cases')
      .selectAll()
      .where('id', '=', testCaseId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      project_id: ctx.tenant.projectId,
      application_id: applicationId,
      name: profile.name,
      goal: profile.goal,
      expected_result: profile.expectedResult,
      is_enabled: false,
      generation_status: 'GENERATING',
      steps: null,
    });
    const client = await ctx.deps.temporal.get();
    expect((await client.workflow.getHandle(`burn-in:${testCaseId}`).describe()).type).toBe('burnIn');
    const again = await ctx.call('POST', path);
    expect(again.status).toBe(409);
    expect(again.body.message).toBe(
      `Suggestion ${profile.id} was accepted already (test case ${testCaseId}); a suggestion is decided once`,
    );
    const listed = (await ctx.call('GET', `/v1/discoveries/${first.shortId}/suggestions`)).body.suggestions;
    expect(listed.map((s: { status: string }) => s.status)).toEqual(['REJECTED', 'ACCEPTED', 'PROPOSED', 'PROPOSED']);
  });

  it('refuses bad and unknown ids with a message', async () => {
    const list = (await ctx.call('GET', `/v1/discoveries/${first.shortId}/suggestions`)).body.suggestions;
    const search = list[2].id as string;
    const other = await discovery([shopMap[0]!]);
    const unknownDiscovery = newShortId('discovery');
    const unknownApp = newShortId('application');
    const cases: [method: 'GET' | 'POST', path: string, status: number, message: RegExp][] = [
      ['GET', '/v1/applications/nope/coverage', 400, /applicationShortId/],
      ['GET', `/v1/applications/${unknownApp}/coverage`, 404, /^Application not found/],
      ['GET', '/v1/discoveries/nope/suggestions', 400, /discoveryShortId/],
      ['GET', `/v1/discoveries/${unknownDiscovery}/suggestions`, 404, /^Discovery not found/],
      ...(['accept', 'reject'] as const).flatMap((what): ['POST', string, number, RegExp][] => [
        ['POST', `/v1/discoveries/${first.shortId}/suggestions/nope/${what}`, 400, /suggestionId/],
        ['POST', `/v1/discoveries/nope/suggestions/${search}/${what}`, 400, /discoveryShortId/],
        ['POST', `/v1/discoveries/${unknownDiscovery}/suggestions/${search}/${what}`, 404, /^Discovery not found/],
        [
          'POST',
          `/v1/discoveries/${first.shortId}/suggestions/${randomUUID()}/${what}`,
          404,
          new RegExp(`^Suggestion [0-9a-f-]{36} of discovery ${first.shortId} not found$`),
        ],
        // A suggestion is asked for under its own discovery.
        [
          'POST',
          `/v1/discoveries/${other.shortId}/suggestions/${search}/${what}`,
          404,
          new RegExp(`^Suggestion ${search} of discovery ${other.shortId} not found$`),
        ],
      ]),
    ];
    for (const [method, path, status, message] of cases) {
      const res = await ctx.call(method, path);
      expect([method, path, res.status]).toEqual([method, path, status]);
      expect(res.body.message).toMatch(message);
    }
    // Nothing was decided by the refused requests.
    const after = (await ctx.call('GET', `/v1/discoveries/${first.shortId}/suggestions`)).body.suggestions;
    expect(after[2]).toMatchObject({ id: search, status: 'PROPOSED', decidedAt: null });
  });
  it('two acceptances at once: one test case, the other answered 409', async () => {
    const list = (await ctx.call('GET', `/v1/discoveries/${first.shortId}/suggestions`)).body.suggestions;
    const orders = list[3];
    const path = `/v1/discoveries/${first.shortId}/suggestions/${orders.id}/accept`;
    const answers = await Promise.all([ctx.call('POST', path), ctx.call('POST', path)]);
    const won = answers.find((a) => a.status === 200)!;
    burnIns.push(won.body.testCaseId);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const made = await ctx.db
      .selectFrom('test_cases')
      .select('id')
      .where('project_id', '=', ctx.tenant.projectId)
      .where('name', '=', orders.name)
      .execute();
    expect(made.map((r) => r.id)).toEqual([won.body.testCaseId]);
  });
});
