import { beforeAll, describe, expect, it } from 'vitest';
import { lockIssue, updateIssue } from '../../src/db/queries/issues.js';
import type { ApiContext } from '../support/app-context.js';
import { serveAppForTests } from '../support/served-app.js';
import { expectAccessible, openDashboard, type DashboardBrowser } from '../support/dashboard.js';
import { expectWithinPageBudget } from '../support/page-checks.js';

// The dashboard's issues pages in the project's Chromium (every non-local request refused): the project's issues
// listed and filtered from the menu, one opened, its status changed through the form; another project's is a 404.

describe('dashboard: issues', () => {
  let ctx: ApiContext;
  let dash: DashboardBrowser;
  const ids: Record<string, string> = {};

  const addIssue = async (
    projectId: string,
    key: string,
    fields: {
      kind: 'a11y' | 'exception';
      severity: 'critical' | 'serious';
      title: string;
      rule: string | null;
      occurrences: number;
    },
  ) => {
    const row = await lockIssue(ctx.db, {
      id: crypto.randomUUID(),
      project_id: projectId,
      fingerprint: key,
      kind: fields.kind,
      severity: fields.severity,
      title: fields.title,
      rule: fields.rule,
      page: '/profile',
      sample_url: 'http://127.0.0.1/profile',
    });
    await updateIssue(ctx.db, row.id, { occurrences: fields.occurrences, pages: ['/profile'] });
    ids[key] = row.id;
  };

  const served = serveAppForTests('pglite', openDashboard);
  beforeAll(async () => {
    ({ api: ctx, front: dash } = served);
    await addIssue(ctx.tenant.projectId, 'label', {
      kind: 'a11y',
      severity: 'critical',
      title: 'label: Form elements must have labels (#email <input id="email">)',
      rule: 'label',
      occurrences: 3,
    });
    await addIssue(ctx.tenant.projectId, 'exception', {
      kind: 'exception',
      severity: 'serious',
      title: "TypeError: Cannot read properties of null (reading 'name')",
      rule: null,
      occurrences: 2,
    });
    await addIssue(ctx.other.projectId, 'theirs', {
      kind: 'exception',
      severity: 'serious',
      title: 'Globex secret error',
      rule: null,
      occurrences: 1,
    });
    await dash.signIn(ctx.tenant.token);
  }, 90_000);

  it("lists the project's issues from the menu, filters them, opens one and changes its status; the pages pass axe-core and stay under 50 KB", async () => {
    const { page } = dash;
    await page.goto(`${dash.url}/runs`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Issues' }).click();
    await page.getByRole('heading', { name: 'Issues', level: 1 }).waitFor();
    const firstCells = async () =>
      Promise.all(
        (await page.locator('tbody tr').all()).map(async (row) =>
          (await row.locator('td').allTextContents()).slice(0, 5),
        ),
      );
    expect((await firstCells()).map((r) => r.slice(1, 5)).sort()).toEqual([
      ['a11y', 'critical', 'open', '3'],
      ['exception', 'serious', 'open', '2'],
    ]);
    expect(await page.textContent('main')).not.toContain('Globex');
    await expectAccessible(page);

    await page.getByLabel('Kind').selectOption('a11y');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/kind=a11y/);
    expect((await firstCells()).map((r) => r[0])).toEqual([
      'label: Form elements must have labels (#email <input id="email">)',
    ]);

    await page.getByRole('link', { name: /^label: Form elements/ }).click();
    await page.getByRole('heading', { level: 1, name: /label: Form elements must have labels/ }).waitFor();
    await expectAccessible(page);
    await page.getByLabel('Status').selectOption('ignored');
    await page.getByRole('button', { name: 'Change status' }).click();
    await page.waitForLoadState();
    expect((await ctx.call('GET', `/v1/issues/${ids.label}`)).body.status).toBe('ignored');
    expect(await page.locator('dl.facts').textContent()).toContain('Statusignored');

    await expectWithinPageBudget(dash, ['/issues', `/issues/${ids.label}`]);
  }, 90_000);

  it("another project's issue and a made-up id are the same 404", async () => {
    for (const id of [ids.theirs, '3f2b8c1e-7d4a-4b6f-9a2e-1c5d8e9f0a7b', 'nope']) {
      const response = await dash.page.goto(`${dash.url}/issues/${id}`);
      expect(response?.status()).toBe(404);
    }
    expect(await dash.page.textContent('main')).not.toContain('Globex');
  }, 60_000);
});
