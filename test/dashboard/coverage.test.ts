import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDiscovery } from '../../src/db/queries/discoveries.js';
import type { TestResult } from '../../src/db/schema.js';
import { writeDiscoverySuggestions } from '../../src/services/discovery-suggestions.js';
import { workflowIds } from '../../workflows/shared.js';
import { terminateBurnIns, type ApiContext } from '../support/app-context.js';
import { base, buy, orderNote, shopMap, signIn } from '../support/coverage-fixture.js';
import { serveAppForTests } from '../support/served-app.js';
import { expectAccessible, openDashboard, type DashboardBrowser } from '../support/dashboard.js';
import { atEachScreenSize, expectWithinPageBudget } from '../support/page-checks.js';
import { insertDiscoveryRows, insertFinishedRun } from '../support/discovery-rows.js';
import { applicationIdOf, insertRecordedTestCase } from '../support/recorded.js';

// The dashboard's coverage page (issue 34) in the project's Chromium (every non-local request refused). The shop of
// test/support/coverage-fixture.ts is a completed discovery's rows, its tests as burn-in leaves them (as in
// test/api/discovery-coverage.test.ts). Counted by hand from the fixture:
//   patterns (9): covered 7, uncovered 2 (/ and /orders); acted on 5; asserted on 4.
//   forms (7): covered 4 (Sign in, Add to cart, Checkout, Add a note), uncovered 3 (Search, Coupon, Profile);
//     submitted 3; checked after acting 4. Forms per pattern: one each, two on /products/{id}, none on /orders.
//   suggestions (no model): Coupon on /cart, Profile on /settings, Search on /, the page /orders.

const shots = 'test-results/dashboard';
const nav = ['/', '/login', '/products', '/cart', '/orders', '/settings'];
const links = { '/products': ['/products/42'], '/cart': ['/checkout'], '/orders': ['/orders/7', '/returns'] };

describe('dashboard: coverage and suggestions', () => {
  let ctx: ApiContext;
  let dash: DashboardBrowser;
  let shop: string;
  let blog: string;
  let big: string;
  let made: (name: string, url: string) => Promise<string>;
  const burnIns: string[] = [];
  const discoveries: string[] = [];

  const served = serveAppForTests('pglite', openDashboard);
  beforeAll(async () => {
    ({ api: ctx, front: dash } = served);
    made = async (name: string, url: string) => {
      const app = (await ctx.call('POST', '/v1/applications', { name })).body.shortId as string;
      const env = await ctx.call('POST', `/v1/applications/${app}/environments`, { name: 'Local', url });
      expect(env.status).toBe(201);
      return app;
    };
    shop = await made('Shop', `${base}/`);
    blog = await made('Blog', 'https://blog.example.test/');
    const applicationId = await applicationIdOf(ctx.db, shop);
    const projectId = ctx.tenant.projectId;
    const add = (name: string, steps: typeof signIn.steps, resumeFrom?: string) =>
      insertRecordedTestCase(ctx.db, { projectId, applicationId, name, steps: [...steps], resumeFrom });
    const signInId = await add(signIn.name, [
      { action: 'navigate', value: '/login', description: 'Open the sign-in' },
      ...signIn.steps,
    ]);
    const buyId = await add(buy.name, buy.steps);
    const opener = await add('Open order 7', [{ action: 'navigate', value: '/orders/7', description: 'Open it' }]);
    await ctx.db.updateTable('test_cases').set({ is_enabled: false }).where('id', '=', opener).execute();
    await add(orderNote.name, orderNote.steps, opener);
    const run = (testCaseId: string, day: string, result: TestResult) =>
      insertFinishedRun(ctx.db, { projectId, applicationId, testCaseId, name: 'a test', day, result });
    await run(signInId, '2026-11-20', 'PASSED');
    await run(buyId, '2026-11-25', 'PASSED');
    const discovery = await insertDiscoveryRows(ctx.db, {
      projectId,
      applicationId,
      startUrl: `${base}/`,
      map: shopMap,
      nav,
      links,
    });
    await writeDiscoverySuggestions(ctx.deps, undefined, (await getDiscovery(ctx.db, discovery.id))!);
    await dash.signIn(ctx.tenant.token);
  }, 90_000);

  afterAll(async () => {
    await terminateBurnIns(ctx, burnIns);
    const client = await ctx?.deps.temporal.get();
    for (const shortId of discoveries)
      await client.workflow
        .getHandle(workflowIds.discovery(shortId))
        .terminate('test cleanup')
        .catch(() => undefined);
  });

  const coveragePath = () => `/applications/${shop}/coverage`;

  it('draws the map with one box per pattern, uncovered ones marked, and counts as the hand count does', async () => {
    const { page } = dash;
    await page.goto(`${dash.url}/applications`);
    await page.getByRole('link', { name: 'Coverage and discovery of Shop' }).click();
    await page.getByRole('heading', { level: 1, name: 'Coverage of Shop' }).waitFor();
    const totals = await page.locator('#totals').textContent();
    expect(totals).toContain('9 page patterns: 7 covered, 2 uncovered (5 acted on, 4 asserted on)');
    expect(totals).toContain('7 forms: 4 covered, 3 uncovered (3 submitted, 4 checked after)');
    expect(totals).toContain('Tests visit /help, which the discovery did not reach.');

    const picture = page.getByRole('img', {
      name: 'Site map of Shop: 9 page patterns: 7 covered, 2 uncovered; 7 forms: 4 covered, 3 uncovered',
    });
    await picture.waitFor();
    const boxes = picture.locator('g.node[data-pattern]');
    const patternsOf = (l: typeof boxes) => l.evaluateAll((els) => els.map((e) => e.getAttribute('data-pattern')));
    expect((await patternsOf(boxes)).sort()).toEqual(shopMap.map((p) => p.pattern).sort());
    const uncovered = picture.locator('g.node.uncovered[data-pattern]');
    expect(await patternsOf(uncovered)).toEqual(['/', '/orders']);
    // Readable without colour: the word is in the box and in its tooltip.
    expect(await uncovered.locator('text.tag').allTextContents()).toEqual(['uncovered · 1 form', 'uncovered']);
    for (const title of await uncovered.locator('title').allTextContents())
      expect(title).toContain('uncovered: no enabled test visits it');
    expect(await picture.locator('g.node.covered[data-pattern]').count()).toBe(7);
    expect(await picture.locator('g.node.has-forms[data-pattern]').count()).toBe(8);
    expect(await picture.locator('g[data-pattern="/products/{id}"] text.tag').textContent()).toBe('2 forms');
    // The header's links are navigation; the three links between sections are arrows.
    expect(await picture.locator('path.link title').allTextContents()).toEqual([
      '/cart links to /checkout',
      '/orders links to /orders/{id}',
      '/products links to /products/{id}',
    ]);

    const firstCells = (table: string) =>
      page.locator(`${table} tbody tr`).evaluateAll((rows) =>
        rows.map((r) =>
          Array.from(r.children)
            .slice(0, 2)
            .map((c) => c.textContent),
        ),
      );
    expect(await firstCells('#patterns')).toEqual([
      ['/', 'uncovered'],
      ['/orders', 'uncovered'],
      ...['/cart', '/checkout', '/login', '/orders/{id}', '/products', '/products/{id}', '/settings'].map((p) => [
        p,
        'covered',
      ]),
    ]);
    const checkout = page.getByRole('row', { name: /^\/checkout / });
    expect(await checkout.getByRole('link', { name: 'Buy a product' }).count()).toBe(3);
    expect(await checkout.locator('time').getAttribute('datetime')).toBe('2026-11-25T10:00:00.000Z');
    expect((await firstCells('#forms')).map(([name, state]) => `${name} ${state}`)).toEqual([
      'Search uncovered',
      'Coupon uncovered',
      'Profile uncovered',
      // Then by the first page each is on: /checkout, /login, /orders/{id}, /products/{id}.
      'Checkout covered',
      'Sign in covered',
      'Add a note covered',
      'Add to cart covered',
    ]);
    await page.getByRole('link', { name: 'by path' }).click();
    await page.waitForURL(/order=pattern/);
    expect((await firstCells('#patterns')).map(([p]) => p)).toEqual(shopMap.map((p) => p.pattern).sort());

    const suggestions = page.locator('section.suggestion h3');
    expect(await suggestions.allTextContents()).toEqual([
      '1. Submit "Coupon" on /cart',
      '2. Submit "Profile" on /settings',
      '3. Search with "Search" on /',
      '4. Open Orders',
    ]);
    const coupon = page.getByRole('region', { name: '1. Submit "Coupon" on /cart' });
    expect(await coupon.locator('dd').nth(2).textContent()).toBe('/cart');
    expect(await coupon.locator('dd').nth(3).textContent()).toBe('page /cart, form Coupon');
    await expectAccessible(page);
    expect(dash.blocked).toEqual([]);
  });

  it('rejects one suggestion and accepts another without JavaScript-only parts: the page shows each decision', async () => {
    const page = await (
      await dash.browser.newContext({ javaScriptEnabled: false, storageState: await dash.context.storageState() })
    ).newPage();
    try {
      await page.goto(`${dash.url}${coveragePath()}`);
      expect(await page.getByText('4 of 4 suggestions still to decide.').count()).toBe(1);
      await page.getByRole('button', { name: 'Reject: Submit "Coupon" on /cart' }).click();
      await page.waitForURL((u) => u.pathname === coveragePath());
      const coupon = page.getByRole('region', { name: '1. Submit "Coupon" on /cart' });
      expect(await coupon.getByText('Rejected', { exact: true }).count()).toBe(1);
      expect(await coupon.getByRole('button').count()).toBe(0);
      expect(await page.getByText('3 of 4 suggestions still to decide.').count()).toBe(1);

      await page.getByRole('button', { name: 'Accept: Submit "Profile" on /settings' }).click();
      await page.waitForURL(/\/test-cases\/[0-9a-f-]{36}$/);
      const testCaseId = new URL(page.url()).pathname.split('/').pop()!;
      burnIns.push(testCaseId);
      await page.getByRole('heading', { level: 1, name: 'Submit "Profile" on /settings' }).waitFor();
      const created = (await ctx.call('GET', `/v1/test-cases/${testCaseId}`)).body;
      expect(created).toMatchObject({ name: 'Submit "Profile" on /settings', isEnabled: false });

      await page.goto(`${dash.url}${coveragePath()}`);
      const profile = page.getByRole('region', { name: '2. Submit "Profile" on /settings' });
      expect(await profile.getByText('Accepted', { exact: true }).count()).toBe(1);
      expect(await profile.getByRole('link', { name: 'its test case' }).getAttribute('href')).toBe(
        `/test-cases/${testCaseId}`,
      );
      expect(await page.getByText('2 of 4 suggestions still to decide.').count()).toBe(1);
      const shortId = (await ctx.call('GET', `/v1/applications/${shop}/coverage`)).body.discovery.shortId;
      const listed = (await ctx.call('GET', `/v1/discoveries/${shortId}/suggestions`)).body.suggestions;
      expect(listed.map((s: { status: string }) => s.status)).toEqual(['REJECTED', 'ACCEPTED', 'PROPOSED', 'PROPOSED']);
    } finally {
      await page.context().close();
    }
    // axe runs in the page: in the session's own page, which runs scripts.
    await dash.page.goto(`${dash.url}${coveragePath()}`);
    await expectAccessible(dash.page);
  });

  it('offers to start a discovery where none completed, and starts one through the form', async () => {
    const { page } = dash;
    await page.goto(`${dash.url}/applications/${blog}/coverage`);
    await page.getByText('No discovery of Blog has completed yet').waitFor();
    expect(await page.locator('svg.sitemap').count()).toBe(0);
    await expectAccessible(page);
    await page.getByLabel('What to look at first (optional)').fill('the archive');
    await page.getByRole('button', { name: 'Start a discovery' }).click();
    await page.waitForURL((u) => u.pathname === `/applications/${blog}/coverage`);
    const listed = (await ctx.call('GET', `/v1/applications/${blog}/discoveries`)).body.discoveries;
    expect(listed).toHaveLength(1);
    discoveries.push(listed[0].shortId);
    expect(listed[0]).toMatchObject({
      status: 'QUEUED',
      intent: 'the archive',
      startUrl: 'https://blog.example.test/',
    });
    const status = await page.getByRole('status').textContent();
    expect(status).toContain(
      `Discovery ${listed[0].shortId} of https://blog.example.test/ is QUEUED (0 pages visited).`,
    );
    expect(status).toContain('Reload to see the map once it has completed.');
    await expectAccessible(page);
  });

  it("answers 404 for another project's application and a made-up one", async () => {
    const other = await dash.signInElsewhere(ctx.other.token);
    try {
      const res = await other.goto(`${dash.url}${coveragePath()}`);
      expect(res?.status()).toBe(404);
      await other.getByRole('heading', { name: 'Not found' }).waitFor();
    } finally {
      await other.context().close();
    }
    expect((await dash.page.goto(`${dash.url}/applications/app_doesnotexist/coverage`))?.status()).toBe(404);
  });

  it('draws a map of 240 patterns within bounds: summary rows for what it leaves out, the tables a page at a time', async () => {
    // Twelve sections of twenty patterns each (the section and 19 items), every fourth item with a form; no test of
    // this application exists, so all 240 are uncovered.
    const sections = Array.from({ length: 12 }, (_, s) => `/section-${String(s).padStart(2, '0')}`);
    const map = sections.flatMap((section) => [
      { pattern: section, example: section, title: section, status: 200, forms: [] },
      ...Array.from({ length: 19 }, (_, i) => ({
        pattern: `${section}/item-${String(i).padStart(2, '0')}`,
        example: `${section}/item-${String(i).padStart(2, '0')}`,
        title: `Item ${i}`,
        status: 200,
        forms: i % 4 === 0 ? [{ ...shopMap[4]!.forms[0]!, key: `form-${section}-${i}`, name: `Form ${i}` }] : [],
      })),
    ]);
    big = await made('Big', 'https://big.example.test/');
    const applicationId = await applicationIdOf(ctx.db, big);
    await insertDiscoveryRows(ctx.db, {
      projectId: ctx.tenant.projectId,
      applicationId,
      startUrl: 'https://big.example.test/section-00',
      map,
      nav: sections,
    });
    const { page } = dash;
    await page.goto(`${dash.url}/applications/${big}/coverage`);
    expect(await page.locator('#totals').textContent()).toContain('240 page patterns: 0 covered, 240 uncovered');
    const picture = page.getByRole('img', { name: /^Site map of Big/ });
    // Chosen breadth first: the 12 sections and their summaries (24 rows), then whole sections (19 items each, the
    // section's summary gone: 18 rows more) while they fit: 24 + 7 x 18 = 150 rows. Sections 07 to 11 keep a summary.
    const boxes = await picture.locator('g.node[data-pattern]').count();
    const summaries = await picture.locator('g.node.summary').allTextContents();
    expect([boxes, summaries.length]).toEqual([12 + 7 * 19, 5]);
    expect(summaries[0]).toBe('19 more patterns under /section-07, 19 uncovered: see the table');
    const counted = summaries.reduce((n, s) => n + Number(/^(\d+) more/.exec(s)![1]), 0);
    expect(boxes + counted).toBe(240);
    expect(await page.locator('#patterns tbody tr').count()).toBe(100);
    expect(await page.locator('#patterns caption').textContent()).toBe('Page patterns (1 to 100 of 240)');
    await page.getByRole('link', { name: 'Next page' }).click();
    await page.waitForURL(/page=2/);
    expect(await page.locator('#patterns caption').textContent()).toBe('Page patterns (101 to 200 of 240)');
    await expectAccessible(page);
  });

  it('draws the map axe-clean at desktop and phone sizes, its marks from the shared defs under its own ids', async () => {
    mkdirSync(shots, { recursive: true });
    await atEachScreenSize(dash, async (page, { label }) => {
      await page.goto(`${dash.url}${coveragePath()}`);
      // The two uncovered pages' bands are hatched by the map's own pattern; no id on the page is defined twice.
      const hatched = page.locator('svg.sitemap:not(.swatch) .uncovered rect.band');
      expect(await hatched.evaluateAll((rs) => rs.map((r) => r.getAttribute('fill')))).toEqual([
        'url(#sm-hatch)',
        'url(#sm-hatch)',
      ]);
      expect(await page.locator('pattern#sm-hatch').count()).toBe(1);
      expect(await page.locator('path.link').first().getAttribute('marker-end')).toBe('url(#sm-arrow)');
      const ids = await page.locator('[id]').evaluateAll((els) => els.map((e) => e.id));
      expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
      await expectAccessible(page);
      await page.screenshot({ path: `${shots}/coverage-${label}.png`, fullPage: true });
    });
    expect(dash.blocked).toEqual([]);
  });

  it('stays under 50 KB of HTML and JavaScript', async () => {
    await expectWithinPageBudget(dash, [
      coveragePath(),
      `/applications/${blog}/coverage`,
      `/applications/${big}/coverage`,
    ]);
  });
});
