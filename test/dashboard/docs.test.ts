import { describe, expect, it } from 'vitest';
import { openDashboard } from '../support/dashboard.js';
import { serveAppForTests } from '../support/served-app.js';

describe('/docs on a machine without internet', () => {
  const served = serveAppForTests('pglite', openDashboard);

  it('renders the API reference with its operations while every non-local request is refused', async () => {
    const { page } = served.front;
    const scripts: string[] = [];
    page.on('request', (r) => r.resourceType() === 'script' && scripts.push(r.url()));
    await page.goto(`${served.front.url}/docs`);
    // Operations of several tags, as Scalar lists them (method and path) from /v1/openapi.json.
    await page.getByRole('heading', { name: 'Proctor API' }).first().waitFor({ timeout: 30_000 });
    for (const path of ['/v1/test-cases/{testCaseId}/playwright', '/v1/run/{shortId}', '/v1/chat']) {
      await page.getByText(path, { exact: true }).first().waitFor();
    }
    await page.waitForLoadState('networkidle');
    expect(scripts.length).toBeGreaterThan(0);
    expect(scripts.every((u) => u.startsWith(`${served.front.url}/docs/scalar.`))).toBe(true);
    expect(served.front.blocked).toEqual([]);
  });
});
