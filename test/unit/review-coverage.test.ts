import { beforeAll, describe, expect, it } from 'vitest';
import type { MapPattern } from '../../src/domain/coverage.js';
import { uncoveredPagesOfChange } from '../../src/services/review-coverage.js';
import { databaseKinds, useApiContext } from '../support/app-context.js';
import { insertDiscoveryRows, insertFinishedRun } from '../support/discovery-rows.js';
import { applicationIdOf, insertRecordedTestCase } from '../support/recorded.js';

// The uncovered pages a change review names (issue 34), from stored discoveries, tests and the review's run: the pages
// of each application's latest completed map that the change's route files render or the review's run visited, and
// that no enabled test visits.

const page = (pattern: string, example = pattern): MapPattern => ({ pattern, example, status: 200, forms: [] });

describe.each(databaseKinds)('uncovered pages a change touches (%s)', (kind) => {
  const ctx = useApiContext(kind);
  let shop: string;
  let admin: string;
  let runId: string;
  let discoveries: { shop: string; admin: string };

  beforeAll(async () => {
    const projectId = ctx.tenant.projectId;
    const appOf = async (name: string) => (await ctx.call('POST', '/v1/applications', { name })).body.shortId as string;
    [shop, admin] = [await appOf('Shop'), await appOf('Admin')];
    await appOf('Blog'); // never discovered: it has no map, so nothing to say of it
    const shopId = await applicationIdOf(ctx.db, shop);
    const adminId = await applicationIdOf(ctx.db, admin);
    const mapOf = (applicationId: string, map: MapPattern[], finishedAt = new Date()) =>
      insertDiscoveryRows(ctx.db, {
        projectId,
        applicationId,
        startUrl: 'https://shop.example.test/',
        map,
        nav: ['/'],
        finishedAt,
      });
    // An older map of the shop had /legacy; the latest one has not, and is the one read.
    await mapOf(shopId, [page('/'), page('/legacy')], new Date('2026-01-01T00:00:00Z'));
    discoveries = {
      shop: (
        await mapOf(shopId, [
          page('/'),
          page('/orders'),
          page('/orders/{id}', '/orders/7'),
          page('/settings'),
          page('/reports'),
        ])
      ).shortId,
      admin: (await mapOf(adminId, [page('/'), page('/orders/{id}', '/orders/9')])).shortId,
    };
    const add = (applicationId: string, name: string, path: string) =>
      insertRecordedTestCase(ctx.db, {
        projectId,
        applicationId,
        name,
        steps: [{ action: 'navigate', value: path, description: `Open ${path}`, at: path }],
      });
    await add(shopId, 'Open the orders', '/orders');
    // A test the review wrote (disabled): the review's run went to the reports, which no enabled test visits.
    const reviewTest = await add(shopId, 'Open the reports', '/reports');
    await ctx.db.updateTable('test_cases').set({ is_enabled: false }).where('id', '=', reviewTest).execute();
    runId = await insertFinishedRun(ctx.db, {
      projectId,
      applicationId: shopId,
      testCaseId: reviewTest,
      name: 'Open the reports',
      day: '2026-11-27',
      result: 'PASSED',
    });
  });

  const paths = ['app/orders/[id]/page.tsx', 'app/orders/page.tsx', 'app/legacy/page.tsx', 'src/lib/money.ts'];

  it("per application with a map: the route files' uncovered pages and the run's, in the map's order", async () => {
    const found = await uncoveredPagesOfChange(
      ctx.deps,
      { projectId: ctx.tenant.projectId, applicationOverrides: [], runId },
      paths,
    );
    expect(found).toEqual([
      // /orders is covered by an enabled test; /settings is not touched; /legacy is not in the latest map.
      { applicationName: 'Shop', discoveryShortId: discoveries.shop, patterns: ['/orders/{id}', '/reports'] },
      { applicationName: 'Admin', discoveryShortId: discoveries.admin, patterns: ['/orders/{id}'] },
    ]);
  });

  it('only the applications the review overrides, when it names some; no run, no run pages', async () => {
    const found = await uncoveredPagesOfChange(
      ctx.deps,
      {
        projectId: ctx.tenant.projectId,
        applicationOverrides: [{ applicationShortId: shop, environment: { url: 'https://pr-1.preview.test' } }],
        runId: null,
      },
      paths,
    );
    expect(found).toEqual([
      { applicationName: 'Shop', discoveryShortId: discoveries.shop, patterns: ['/orders/{id}'] },
    ]);
  });

  it('a change whose files render no page, and no run: nothing', async () => {
    expect(
      await uncoveredPagesOfChange(
        ctx.deps,
        { projectId: ctx.tenant.projectId, applicationOverrides: [], runId: null },
        ['src/lib/money.ts', 'README.md'],
      ),
    ).toEqual([]);
  });
});
