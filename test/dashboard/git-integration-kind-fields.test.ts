import { generateKeyPairSync } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectAccessible } from '../support/dashboard.js';
import { useSignedInDashboard } from '../support/signed-in-dashboard.js';

// The Git integration form is honest about which boxes apply to which kind: with JavaScript only the boxes of the
// chosen kind show (the others are hidden and disabled, so not sent); without it every box shows and a value in
// one that does not apply is refused at that box, nothing stored. Before, an App ID typed on a token
// integration's edit form was silently dropped. Chromium on the real app (Postgres).

const privateKey = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs1', format: 'pem' })
  .toString();
const kinds = {
  'github-app': { label: 'GitHub, as a GitHub App', boxes: ['GitHub App ID', 'GitHub App private key'] },
  'github-token': { label: 'GitHub, with an access token', boxes: ['Access token'] },
  gitlab: { label: 'GitLab, with a project or group access token', boxes: ['Access token'] },
} as const;
const allBoxes = ['GitHub App ID', 'GitHub App private key', 'Access token'];

describe('dashboard: the Git integration form shows and takes only the boxes of the chosen kind', () => {
  const rig = useSignedInDashboard();
  const integrations = async () =>
    (await rig.stack.call('GET', '/v1/git-integrations')).body.integrations as Array<Record<string, unknown>>;
  const github = async () => (await integrations()).find((i) => i.provider === 'github');
  const noScriptPage = async () => {
    const page = await (
      await rig.dash.browser.newContext({
        javaScriptEnabled: false,
        storageState: await rig.dash.context.storageState(),
      })
    ).newPage();
    page.setDefaultTimeout(10_000);
    return page;
  };
  const visible = async (page: Page) =>
    Object.fromEntries(
      await Promise.all(
        allBoxes.map(async (box) => [box, await page.getByLabel(box, { exact: true }).isVisible()] as const),
      ),
    );

  it('with JavaScript: each kind shows exactly its boxes; a value typed before switching kind is not sent', async () => {
    const page = rig.dash.page;
    await page.goto(`${rig.dash.url}/new/git-integration`);
    for (const kind of Object.values(kinds)) {
      await page.getByLabel('Provider').selectOption({ label: kind.label });
      expect(await visible(page), kind.label).toEqual(
        Object.fromEntries(allBoxes.map((box) => [box, (kind.boxes as readonly string[]).includes(box)])),
      );
      expect(await page.getByLabel('Webhook secret').isVisible()).toBe(true);
    }
    await expectAccessible(page);

    await page.getByLabel('Provider').selectOption({ label: kinds['github-app'].label });
    await page.getByLabel('GitHub App ID').fill('777');
    await page.getByLabel('Provider').selectOption({ label: kinds['github-token'].label });
    await page.getByLabel('Access token', { exact: true }).fill('github_pat_kind_fields_1');
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.waitForURL(/\/git$/);
    expect(await github()).toMatchObject({ auth: 'token', appId: null, hasToken: true, hasPrivateKey: false });

    // Editing the token integration: the App boxes show only once "A GitHub App" is chosen.
    await page.getByRole('link', { name: 'Edit the github integration' }).click();
    await page.waitForURL(/\/edit$/);
    expect(await visible(page)).toEqual({
      'GitHub App ID': false,
      'GitHub App private key': false,
      'Access token': true,
    });
    await page.getByLabel('A GitHub App').check();
    expect(await visible(page)).toEqual({
      'GitHub App ID': true,
      'GitHub App private key': true,
      'Access token': false,
    });
    await page.getByLabel('An access token').check();
    expect(await visible(page)).toEqual({
      'GitHub App ID': false,
      'GitHub App private key': false,
      'Access token': true,
    });
    await expectAccessible(page);
  }, 60_000);

  it("without JavaScript: an App ID typed on a token integration's edit form is refused at its box, nothing changes", async () => {
    const page = await noScriptPage();
    const before = await github();
    await page.goto(`${rig.dash.url}/git`);
    await page.getByRole('link', { name: 'Edit the github integration' }).click();
    expect(await visible(page)).toEqual({
      'GitHub App ID': true,
      'GitHub App private key': true,
      'Access token': true,
    });
    expect(await page.getByLabel('An access token').isChecked()).toBe(true);
    await page.getByLabel('GitHub App ID').fill('123456');
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Save the integration' }).click(),
    ]);
    expect(refused.status()).toBe(400);
    expect(await page.locator('#appId-error').textContent()).toBe(
      'only a GitHub App has an App ID: empty this box, or choose a GitHub App',
    );
    expect(await page.getByLabel('GitHub App ID').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('GitHub App ID').inputValue()).toBe('123456');
    expect(await github()).toEqual(before);

    // Choosing the App kind with the key makes it an App integration, App ID and all.
    await page.getByLabel('A GitHub App').check();
    await page.getByLabel('GitHub App private key').fill(privateKey);
    await page.getByRole('button', { name: 'Save the integration' }).click();
    await page.waitForURL(/\/git$/);
    expect(await github()).toMatchObject({ auth: 'app', appId: '123456', hasPrivateKey: true, hasToken: false });

    // Back to a token: the App ID the form itself shows (the stored one) is not something typed, and is not refused.
    await page.getByRole('link', { name: 'Edit the github integration' }).click();
    expect(await page.getByLabel('GitHub App ID').inputValue()).toBe('123456');
    await page.getByLabel('An access token').check();
    await page.getByLabel('Access token', { exact: true }).fill('github_pat_kind_fields_2');
    await page.getByRole('button', { name: 'Save the integration' }).click();
    await page.waitForURL(/\/git$/);
    expect(await github()).toMatchObject({ auth: 'token', appId: null, hasToken: true, hasPrivateKey: false });
    await page.context().close();
  }, 60_000);

  it('without JavaScript: every box that does not apply to the chosen kind is refused when connecting, nothing stored', async () => {
    await rig.stack.call('DELETE', `/v1/git-integrations/${(await github())!.shortId}`);
    const page = await noScriptPage();
    const typed: Record<string, string> = {
      'GitHub App ID': '4242',
      'GitHub App private key': privateKey,
      'Access token': 'glpat-kind-fields-3',
    };
    const expected: Record<keyof typeof kinds, Record<string, RegExp>> = {
      'github-app': { token: /^a GitHub App signs in with its App ID and private key, not a token/ },
      'github-token': { appId: /^only a GitHub App has an App ID/, privateKey: /^only a GitHub App has a private key/ },
      gitlab: {
        appId: /^GitLab signs in with an access token only/,
        privateKey: /^GitLab signs in with an access token only/,
      },
    };
    for (const [kind, errors] of Object.entries(expected) as [keyof typeof kinds, Record<string, RegExp>][]) {
      await page.goto(`${rig.dash.url}/new/git-integration`);
      await page.getByLabel('Provider').selectOption({ label: kinds[kind].label });
      for (const [box, value] of Object.entries(typed)) await page.getByLabel(box, { exact: true }).fill(value);
      const [refused] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Connect' }).click(),
      ]);
      expect(refused.status(), kind).toBe(400);
      for (const field of ['appId', 'privateKey', 'token']) {
        if (errors[field])
          expect(await page.locator(`#${field}-error`).textContent(), `${kind} ${field}`).toMatch(errors[field]!);
        else expect(await page.locator(`#${field}-error`).count(), `${kind} ${field}`).toBe(0);
      }
      expect(await integrations(), kind).toEqual([]);
    }
    await page.context().close();
  }, 60_000);
});
