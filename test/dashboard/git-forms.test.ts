import { generateKeyPairSync } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from '../support/dashboard.js';
import { expectWithinPageBudget } from '../support/page-checks.js';
import { startFakeGitLab, type FakeGitLab } from '../support/fake-gitlab.js';
import { useSignedInDashboard } from '../support/signed-in-dashboard.js';
import { saveGitSyncFile } from '../../src/db/queries/git-sync.js';

// Issue 24: the Git integrations and merge-request review settings are set up in the dashboard, in Chromium against
// the real app and Postgres, with a local GitLab (the real GitLab client talks to it over HTTP) receiving the
// project hook. Each refusal is shown at its field and stores nothing; keys, tokens and webhook secrets go in and
// never come back in any answer the browser got.

const gitlabToken = 'glpat-dashboard-token-7c1e';
const webhookSecret = 'hook-secret-d4f9a2';
const privateKey = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs1', format: 'pem' })
  .toString();
const keyBody = privateKey.split('\n')[1]!;

describe('dashboard: Git integrations and merge-request review settings', () => {
  const rig = useSignedInDashboard();
  let gl: FakeGitLab;
  const newPages = new Set<string>();

  const integrations = async () =>
    (await rig.stack.call('GET', '/v1/git-integrations')).body.integrations as Array<Record<string, unknown>>;
  const reviewSettings = async () =>
    (await rig.stack.call('GET', '/v1/merge-request-review-settings')).body.settings as Array<Record<string, unknown>>;
  const checkPage = async (page: Page) => {
    await expectAccessible(page);
    newPages.add(new URL(page.url()).pathname);
  };

  beforeAll(async () => {
    gl = await startFakeGitLab();
    gl.addProject('acme/web');
    gl.addToken(gitlabToken, ['acme/web']);
  });

  afterAll(async () => {
    await gl?.close();
  });

  it('connects GitLab: a bad server URL is refused at its field, nothing is stored and no secret is filled back in', async () => {
    const page = rig.dash.page;
    await page.getByRole('link', { name: 'Git', exact: true }).click();
    await checkPage(page);
    await page.getByRole('link', { name: 'Connect GitHub or GitLab' }).click();
    await checkPage(page);
    await page.getByLabel('Provider').selectOption({ label: 'GitLab, with a project or group access token' });
    await page.getByLabel('Access token').fill(gitlabToken);
    await page.getByLabel('Webhook secret').fill(webhookSecret);
    await page.getByLabel('Server URL').fill('ftp://gitlab.acme.internal');
    await page.getByRole('button', { name: 'Connect' }).click();
    await expect.poll(() => page.locator('#baseUrl-error').textContent()).toMatch(/http/);
    expect(await page.getByLabel('Server URL').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Access token').inputValue()).toBe('');
    expect(await page.getByLabel('Webhook secret').inputValue()).toBe('');
    expect(await integrations()).toEqual([]);
    await checkPage(page);

    await page.getByLabel('Access token').fill(gitlabToken);
    await page.getByLabel('Webhook secret').fill(webhookSecret);
    await page.getByLabel('Server URL').fill(gl.url);
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.waitForURL(/\/git$/);
    expect(await integrations()).toEqual([
      expect.objectContaining({
        provider: 'gitlab',
        auth: 'token',
        baseUrl: gl.url,
        hasToken: true,
        hasWebhookSecret: true,
      }),
    ]);
    expect(await page.getByRole('row', { name: /gitlab/ }).textContent()).toContain(
      'token stored, webhook secret stored',
    );

    // One integration per provider: a second GitLab is refused on the form, and the first stays as it was.
    await page.getByRole('link', { name: 'Connect GitHub or GitLab' }).click();
    await page.getByLabel('Provider').selectOption({ label: 'GitLab, with a project or group access token' });
    await page.getByLabel('Access token').fill('glpat-another-one');
    await page.getByRole('button', { name: 'Connect' }).click();
    await expect.poll(() => page.locator('#kind-error').textContent()).toMatch(/already has a GitLab integration/);
    expect(await integrations()).toHaveLength(1);
  }, 90_000);

  it('edits the GitLab integration: an empty token box keeps the token; the webhook secret can be removed', async () => {
    const page = rig.dash.page;
    await page.goto(`${rig.dash.url}/git`);
    await page.getByRole('link', { name: 'Edit the gitlab integration' }).click();
    await checkPage(page);
    expect(await page.content()).not.toContain(gitlabToken);
    expect(await page.getByLabel('Server URL').inputValue()).toBe(gl.url);
    await page.getByLabel('Remove the webhook secret').check();
    await page.getByRole('button', { name: 'Save the integration' }).click();
    await page.waitForURL(/\/git$/);
    expect(await integrations()).toEqual([
      expect.objectContaining({ provider: 'gitlab', hasToken: true, hasWebhookSecret: false, baseUrl: gl.url }),
    ]);
    // The audit log names the fields a person changed, never a value.
    const audit = (await rig.stack.call('GET', '/v1/audit-log?kind=git_integration.updated')).body;
    expect(JSON.stringify(audit)).not.toContain(gitlabToken);
  }, 60_000);

  it('connects GitHub as an App: a key that is not PEM is refused at its field; a real key is stored and never shown; deletes it', async () => {
    const page = rig.dash.page;
    await page.goto(`${rig.dash.url}/new/git-integration`);
    await page.getByLabel('Provider').selectOption({ label: 'GitHub, as a GitHub App' });
    await page.getByLabel('GitHub App ID').fill('12345');
    await page.getByLabel('GitHub App private key').fill('not a key at all');
    await page.getByRole('button', { name: 'Connect' }).click();
    await expect.poll(() => page.locator('#privateKey-error').textContent()).toMatch(/PEM/);
    expect(await page.getByLabel('GitHub App private key').inputValue()).toBe('');
    expect(await page.getByLabel('GitHub App ID').inputValue()).toBe('12345');
    expect(await integrations()).toHaveLength(1);
    await page.getByLabel('GitHub App ID').fill('not an id');
    await page.getByLabel('GitHub App private key').fill(privateKey);
    await page.getByRole('button', { name: 'Connect' }).click();
    await expect.poll(() => page.locator('#appId-error').textContent()).toMatch(/App ID/);
    expect(await integrations()).toHaveLength(1);

    await page.getByLabel('GitHub App ID').fill('12345');
    await page.getByLabel('GitHub App private key').fill(privateKey);
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.waitForURL(/\/git$/);
    expect((await integrations()).find((i) => i.provider === 'github')).toMatchObject({
      auth: 'app',
      appId: '12345',
      hasPrivateKey: true,
      hasToken: false,
    });
    await page.getByRole('link', { name: 'Edit the github integration' }).click();
    expect(await page.getByLabel('GitHub App private key').inputValue()).toBe('');
    // Switching to a token needs the token in the same save.
    await page.getByLabel('An access token').check();
    await page.getByRole('button', { name: 'Save the integration' }).click();
    await expect.poll(() => page.locator('#token-error').textContent()).toMatch(/required/);
    expect((await integrations()).find((i) => i.provider === 'github')).toMatchObject({
      auth: 'app',
      hasPrivateKey: true,
    });

    await page.goto(`${rig.dash.url}/git`);
    await page.getByRole('button', { name: 'Delete the github integration' }).click();
    await page.waitForURL(/\/git$/);
    expect((await integrations()).map((i) => i.provider)).toEqual(['gitlab']);
  }, 60_000);

  it('reviews a GitLab repository: a bad path or an unknown application is refused at its field; saving creates the hook', async () => {
    const page = rig.dash.page;
    const app = (await rig.stack.call('POST', '/v1/applications', { name: 'Web' })).body;
    const elsewhere = (await rig.stack.call('POST', '/v1/applications', { name: 'Other' })).body;
    await rig.stack.call('DELETE', `/v1/applications/${elsewhere.shortId}`);
    await page.goto(`${rig.dash.url}/git`);
    await page.getByRole('link', { name: "Review a repository's merge requests" }).click();
    await checkPage(page);
    await page.getByLabel('Provider').selectOption('gitlab');
    await page.getByLabel('Repository').fill('just-a-name');
    await page.getByLabel('Mention handle').fill('@qa-bot');
    await page.getByRole('button', { name: 'Start reviewing' }).click();
    await expect.poll(() => page.locator('#repository-error').textContent()).toMatch(/owner\/name/);
    expect(await page.getByLabel('Mention handle').inputValue()).toBe('@qa-bot');
    await checkPage(page);
    await page.getByLabel('Repository').fill('acme/web');
    await page.getByLabel('Environments').fill(`preview = ${elsewhere.shortId}`);
    await page.getByRole('button', { name: 'Start reviewing' }).click();
    await expect.poll(() => page.locator('#environmentMapping-error').textContent()).toContain(elsewhere.shortId);
    await page.getByLabel('Environments').fill('preview');
    await page.getByRole('button', { name: 'Start reviewing' }).click();
    await expect.poll(() => page.locator('#environmentMapping-error').textContent()).toBeTruthy();
    expect(await reviewSettings()).toEqual([]);
    expect(gl.hooks('acme/web')).toEqual([]);

    await page.getByLabel('Environments').fill(`preview = ${app.shortId}`);
    await page.getByLabel('Review automatically once the head commit is deployed').uncheck();
    await page.getByLabel('Context for the reviewer').fill('Sign in as the demo shopper first.');
    await page.getByRole('button', { name: 'Start reviewing' }).click();
    await page.waitForURL(/\/git$/);
    const [saved] = await reviewSettings();
    expect(saved).toMatchObject({
      provider: 'gitlab',
      repository: 'acme/web',
      autoRun: false,
      includeDrafts: false,
      handle: '@qa-bot',
      environmentMapping: { preview: app.shortId },
      reviewContext: 'Sign in as the demo shopper first.',
      webhookId: expect.any(String),
    });
    expect(gl.hooks('acme/web')).toEqual([
      expect.objectContaining({ url: expect.stringMatching(/\/webhooks\/gitlab$/) }),
    ]);
    expect(await page.getByRole('heading', { name: 'gitlab: acme/web' }).count()).toBe(1);

    await page.getByRole('link', { name: 'Edit the reviews of acme/web' }).click();
    await checkPage(page);
    expect(await page.getByLabel('Environments').inputValue()).toBe(`preview = ${app.shortId}`);
    await page.getByLabel('Review drafts too').check();
    await page.getByLabel('Mention handle').fill('not a handle!');
    await page.getByRole('button', { name: 'Save the review settings' }).click();
    await expect.poll(() => page.locator('#handle-error').textContent()).toMatch(/letters, digits/);
    expect((await reviewSettings())[0]).toMatchObject({ includeDrafts: false, handle: '@qa-bot' });
    await page.getByLabel('Mention handle').fill('@qa-bot');
    // GitLab not answering: the settings are saved, and the page says the hook is missing and to save again.
    gl.failNext('hooks.list', 1, 503);
    await page.getByRole('button', { name: 'Save the review settings' }).click();
    await page.getByText('Saved, but GitLab could not be reached to create the project hook: save again.').waitFor();
    expect((await reviewSettings())[0]).toMatchObject({ includeDrafts: true, autoRun: false, handle: '@qa-bot' });
    await page.getByRole('button', { name: 'Save the review settings' }).click();
    await page.waitForURL(/\/git$/);
    expect(gl.hooks('acme/web')).toHaveLength(1);
  }, 60_000);

  it("shows the Git sync of test-case files: the folder, each file's state, a conflict with both texts", async () => {
    const page = rig.dash.page;
    await page.goto(`${rig.dash.url}/git`);
    const section = page.locator('h2:has-text("Test cases in Git") ~ *');
    expect(await section.getByText(/^Not set up/).isVisible()).toBe(true);
    const saved = await rig.stack.call('PUT', '/v1/git-sync', {
      provider: 'gitlab',
      repository: 'acme/web',
      folder: 'e2e/proctor',
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    // What a push's read of the folder stores: one file agreed, one changed on both sides since.
    const projectId = rig.stack.tenant.projectId;
    const file = { project_id: projectId, test_case_id: null, pull_request_number: null, pull_request_url: null };
    await saveGitSyncFile(rig.stack.db, {
      ...file,
      path: 'e2e/proctor/login.proctor.yaml',
      state: 'in_sync',
      reason: null,
      base_text: 'name: Login\n',
      ours_text: null,
      theirs_text: null,
    });
    await saveGitSyncFile(rig.stack.db, {
      ...file,
      path: 'e2e/proctor/checkout.proctor.yaml',
      state: 'conflict',
      reason: 'changed in Proctor and in the repository since they last agreed',
      base_text: 'name: Checkout\n',
      ours_text: 'name: Checkout, edited in Proctor\n',
      theirs_text: 'name: Checkout, edited in the repository\n',
    });
    await page.goto(`${rig.dash.url}/git`);
    expect(await page.getByText('2 files known; 1 conflict.').isVisible()).toBe(true);
    const table = page.getByRole('region', { name: 'Test-case files in Git' }).getByRole('table');
    expect(await table.getByRole('row').allInnerTexts()).toEqual([
      expect.stringMatching(/^File\s+State/),
      expect.stringMatching(/checkout\.proctor\.yaml\s+conflict\s+changed in Proctor and in the repository/),
      expect.stringMatching(/login\.proctor\.yaml\s+in sync/),
    ]);
    await page.getByText('Both texts of e2e/proctor/checkout.proctor.yaml').click();
    expect(await page.getByText('name: Checkout, edited in Proctor').isVisible()).toBe(true);
    expect(await page.getByText('name: Checkout, edited in the repository').isVisible()).toBe(true);
    await checkPage(page);
    expect((await rig.stack.call('DELETE', '/v1/git-sync')).body).toEqual({ deleted: true });
  });

  it("answers another project's session with 404 for the integration and the review settings, and changes nothing", async () => {
    const [integration] = await integrations();
    const [settings] = await reviewSettings();
    const elsewhere = await rig.dash.signInElsewhere(rig.other.token);
    for (const path of [
      `/git/integrations/${integration!.shortId}/edit`,
      `/git/reviews/${settings!.id}/edit`,
      '/git/reviews/not-a-uuid/edit',
      '/git/integrations/nope/edit',
    ]) {
      expect((await elsewhere.goto(`${rig.dash.url}${path}`))!.status(), path).toBe(404);
    }
    await elsewhere.goto(`${rig.dash.url}/git`);
    const csrf = (await elsewhere.locator('input[name=_csrf]').first().getAttribute('value'))!;
    for (const path of [
      `/git/integrations/${integration!.shortId}`,
      `/git/integrations/${integration!.shortId}/delete`,
      `/git/reviews/${settings!.id}`,
      `/git/reviews/${settings!.id}/delete`,
    ]) {
      const answer = await elsewhere.request.post(`${rig.dash.url}${path}`, {
        form: { _csrf: csrf, token: 'glpat-stolen', baseUrl: 'https://evil.example', handle: '@evil' },
      });
      expect(answer.status(), path).toBe(404);
    }
    expect(await integrations()).toEqual([integration]);
    expect(await reviewSettings()).toEqual([settings]);
    // That project has no GitLab integration: its form says so at the provider, and nothing is saved anywhere.
    await elsewhere.goto(`${rig.dash.url}/new/merge-request-review`);
    await elsewhere.getByLabel('Provider').selectOption('gitlab');
    await elsewhere.getByLabel('Repository').fill('globex/app');
    await elsewhere.getByRole('button', { name: 'Start reviewing' }).click();
    await expect
      .poll(() => elsewhere.locator('#provider-error').textContent())
      .toBe('No GitLab integration in this project');
    expect(await rig.stack.db.selectFrom('merge_request_review_settings').select('repository').execute()).toEqual([
      { repository: 'acme/web' },
    ]);
    // A post without the session's CSRF token is refused before anything is read.
    const forged = await elsewhere.request.post(`${rig.dash.url}/new/git-integration`, {
      form: { kind: 'gitlab', token: 'glpat-forged' },
    });
    expect(forged.status()).toBe(403);
    await elsewhere.context().close();
  });

  it('keeps every new page within the size budget', async () => {
    await expectWithinPageBudget(rig.dash, newPages);
    expect(newPages.size).toBeGreaterThanOrEqual(5);
  });

  it('works without JavaScript: a refusal is the form again (400) without the secret; a save redirects to the Git page; deletes the settings', async () => {
    const context = await rig.dash.browser.newContext({
      javaScriptEnabled: false,
      storageState: await rig.dash.context.storageState(),
    });
    const page = await context.newPage();
    await page.goto(`${rig.dash.url}/new/git-integration`);
    await page.getByLabel('Provider').selectOption({ label: 'GitHub, with an access token' });
    await page.getByLabel('Access token').fill('github_pat_nojs_secret_1');
    await page.getByLabel('Server URL').fill('https://github.example/api/v3?x=1');
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Connect' }).click(),
    ]);
    expect(refused.status()).toBe(400);
    expect(await refused.text()).not.toContain('github_pat_nojs_secret_1');
    expect(await page.locator('#baseUrl-error').textContent()).toBeTruthy();
    expect(await integrations()).toHaveLength(1);
    await page.getByLabel('Access token').fill('github_pat_nojs_secret_1');
    await page.getByLabel('Server URL').fill('');
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.waitForURL(/\/git$/);
    expect((await integrations()).find((i) => i.provider === 'github')).toMatchObject({
      auth: 'token',
      hasToken: true,
      baseUrl: null,
    });
    expect(await page.content()).not.toContain('github_pat_nojs_secret_1');
    await page.getByRole('button', { name: 'Delete the reviews of acme/web' }).click();
    await page.waitForURL(/\/git$/);
    expect(await reviewSettings()).toEqual([]);
    expect(await page.getByText('No repository is reviewed.').count()).toBe(1);
    await context.close();
  });

  it('never sent a token, key or webhook secret back to the browser', async () => {
    const texts = await Promise.all(rig.answers);
    expect(texts.length).toBeGreaterThan(15);
    for (const secret of [gitlabToken, webhookSecret, keyBody])
      expect(
        texts.filter((t) => t.includes(secret)),
        secret,
      ).toEqual([]);
    expect(rig.dash.blocked).toEqual([]);
  });
});
