import { beforeAll, describe, expect, it } from 'vitest';
import type { TestResult } from '../../src/db/schema.js';
import { applicationCoverage, proposeSuggestions } from '../../src/services/coverage.js';
import { databaseKinds, useApiContext } from '../support/app-context.js';
import { base, buy, orderNote, shopMap, signIn } from '../support/coverage-fixture.js';
import { insertFinishedRun } from '../support/discovery-rows.js';
import { applicationIdOf, insertRecordedTestCase } from '../support/recorded.js';

// The coverage map from stored test cases and runs (issue 34): the hand-counted shop of coverage.test.ts, its tests
// written into the database as burn-in leaves them. Only enabled tests count; a resumed test starts where its
// (disabled) dependency ends; the last pass is the latest PASSED result of the test's runs.

describe.each(databaseKinds)('coverage of stored tests (%s)', (kind) => {
  const ctx = useApiContext(kind);
  let applicationId: string;
  beforeAll(async () => {
    const app = await ctx.call('POST', '/v1/applications', { name: 'Shop' });
    expect(app.status).toBe(201);
    applicationId = await applicationIdOf(ctx.db, app.body.shortId as string);
    const projectId = ctx.tenant.projectId;
    const add = (name: string, steps: typeof signIn.steps, resumeFrom?: string) =>
      insertRecordedTestCase(ctx.db, { projectId, applicationId, name, steps: [...steps], resumeFrom });
    // Stored tests start on the environment's URL: the sign-in opens its page first.
    const t1 = await add(signIn.name, [
      { action: 'navigate', value: '/login', description: 'Open the sign-in' },
      ...signIn.steps,
    ]);
    await add(buy.name, buy.steps);
    const opener = await add('Open order 7', [{ action: 'navigate', value: '/orders/7', description: 'Open it' }]);
    await ctx.db.updateTable('test_cases').set({ is_enabled: false }).where('id', '=', opener).execute();
    await add(orderNote.name, orderNote.steps, opener);
    // A disabled test that fills the coupon: it covers nothing.
    const off = await add('Coupon (disabled)', [
      { action: 'fill', locator: "getByLabel('Coupon code')", value: 'X', description: 'x', at: '/cart' },
    ]);
    await ctx.db.updateTable('test_cases').set({ is_enabled: false }).where('id', '=', off).execute();
    for (const [day, result] of [
      ['2026-11-19', 'PASSED'],
      ['2026-11-20', 'PASSED'],
      ['2026-11-21', 'FAILED'],
    ] as const)
      await runOf(t1, day, result);
  });

  const runOf = (testCaseId: string, day: string, result: TestResult) =>
    insertFinishedRun(ctx.db, {
      projectId: ctx.tenant.projectId,
      applicationId,
      testCaseId,
      name: signIn.name,
      day,
      result,
    });

  it('counts as the hand count does, with the last pass from the runs', async () => {
    const coverage = await applicationCoverage(ctx.deps, {
      projectId: ctx.tenant.projectId,
      applicationId,
      environmentUrl: base,
      map: shopMap,
    });
    expect(coverage.totals).toEqual({
      patterns: { total: 9, covered: 7, uncovered: 2, actedOn: 5, asserted: 4 },
      forms: { total: 7, covered: 4, uncovered: 3, submitted: 3, asserted: 4 },
    });
    const login = coverage.patterns.find((p) => p.pattern === '/login')!;
    expect(login.visitedBy.map((u) => u.steps)).toEqual([[0, 1, 2, 3]]);
    expect(login.lastPassedAt).toBe('2026-11-20T10:00:00.000Z');
    expect(coverage.patterns.find((p) => p.pattern === '/')!.covered).toBe(false);
    expect(coverage.patterns.find((p) => p.pattern === '/checkout')!.lastPassedAt).toBeNull();
    // The resumed test starts on /orders/7, where its dependency ends; the dependency itself is disabled.
    const order = coverage.patterns.find((p) => p.pattern === '/orders/{id}')!;
    expect(order.visitedBy.map((u) => [u.name, u.steps])).toEqual([[orderNote.name, [0, 1, 4, 5]]]);
    expect(coverage.forms.find((f) => f.name === 'Coupon')!.covered).toBe(false);

    const proposed = await proposeSuggestions(undefined, {
      map: shopMap,
      coverage,
      known: new Set(),
      context: { applicationName: 'Shop' },
    });
    expect(proposed.suggestions.map((s) => s.form?.name ?? s.startPage)).toEqual([
      'Coupon',
      'Profile',
      'Search',
      '/orders',
    ]);
    expect(proposed.fallback).toBe('no model is configured');
  });
});
