import { describe, expect, it } from 'vitest';
import { createToken } from '../../src/db/queries/admin.js';
import { expectAccessible } from '../support/dashboard.js';
import { useSignedInDashboard } from '../support/signed-in-dashboard.js';

// Settings → Status badge lists when each badge token last showed a badge (written when the badge URL is
// fetched, at most once a minute), as the API's GET /v1/badge-tokens does. Chromium drives the real app on Postgres.

describe('dashboard: when a badge token was last used', () => {
  const rig = useSignedInDashboard();

  it('says "Never" until the badge URL is fetched, then the time of that use, as the API lists it', async () => {
    const page = rig.dash.page;
    await page.goto(`${rig.dash.url}/project/badge`);
    await page.getByLabel('Token name').fill('Docs site');
    await page.getByRole('button', { name: 'Make the badge URL' }).click();
    await page.getByRole('heading', { name: 'Your badge URL' }).waitFor();
    const url = await page.getByLabel('Badge URL', { exact: true }).inputValue();
    await page.goto(`${rig.dash.url}/project/badge`);
    const row = page.getByRole('row', { name: /Docs site/ });
    const lastUsedCell = row.getByRole('cell').nth(3);
    expect(await page.getByRole('columnheader').nth(3).textContent()).toBe('Last used');
    expect(await lastUsedCell.textContent()).toBe('Never');

    // Fetched as a README viewer would: no session, only the token in the URL.
    const before = Date.now();
    expect((await page.request.get(url.replace('http://127.0.0.1:3000', rig.dash.url))).status()).toBe(200);
    await page.reload();
    const shown = await lastUsedCell.locator('time').getAttribute('datetime');
    expect(Date.parse(shown!)).toBeGreaterThanOrEqual(before - 1_000);
    expect(Date.parse(shown!)).toBeLessThanOrEqual(Date.now());
    const listed = (await rig.stack.call('GET', '/v1/badge-tokens')).body.badgeTokens;
    expect(listed).toEqual([expect.objectContaining({ name: 'Docs site', lastUsedAt: shown })]);
    await expectAccessible(page);
  }, 60_000);

  it('marks an API token as used when the dashboard signs in with it', async () => {
    const fresh = await createToken(rig.stack.db, rig.stack.tenant.projectId, 'api', 'laptop');
    const lastUsed = async () =>
      (
        await rig.stack.db
          .selectFrom('api_tokens')
          .select('last_used_at')
          .where('id', '=', fresh.id)
          .executeTakeFirstOrThrow()
      ).last_used_at;
    expect(await lastUsed()).toBeNull();
    const before = Date.now();
    const elsewhere = await rig.dash.signInElsewhere(fresh.token);
    expect((await lastUsed())!.getTime()).toBeGreaterThanOrEqual(before - 1_000);
    await elsewhere.close();
  }, 60_000);
});
