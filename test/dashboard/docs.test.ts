import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiContext, type ApiContext } from '../support/app-context.js';
import { openDashboard, reserveAppUrl, type DashboardBrowser } from '../support/dashboard.js';

describe('/docs on a machine without internet', () => {
  let api: ApiContext;
  let dash: DashboardBrowser;

  beforeAll(async () => {
    const appUrl = await reserveAppUrl();
    api = await createApiContext('pglite', { appUrl });
    dash = await openDashboard(api.app, appUrl);
  });
  afterAll(async () => {
    await dash?.close();
    await api?.close();
  });

  it('renders the API reference with its operations while every non-local request is refused', async () => {
    const { page } = dash;
    const scripts: string[] = [];
    page.on('request', (r) => r.resourceType() === 'script' && scripts.push(r.url()));
    await page.goto(`${dash.url}/docs`);
    // Operations of several tags, as Scalar lists them (method and path) from /v1/openapi.json.
    await page.getByRole('heading', { name: 'Proctor API' }).first().waitFor({ timeout: 30_000 });
    for (const path of ['/v1/test-cases/{testCaseId}/playwright', '/v1/run/{shortId}', '/v1/chat']) {
      await page.getByText(path, { exact: true }).first().waitFor();
    }
    await page.waitForLoadState('networkidle');
    expect(scripts.length).toBeGreaterThan(0);
    expect(scripts.every((u) => u.startsWith(`${dash.url}/docs/scalar.`))).toBe(true);
    expect(dash.blocked).toEqual([]);
  });
});
