import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { countRows } from '../support/row-counts.js';
import { expectAccessible, type DashboardBrowser } from '../support/dashboard.js';
import { expectWithinPageBudget } from '../support/page-checks.js';
import { createRouter } from '../support/agent-script.js';
import { shopCredentials, type FixtureApps } from '../support/fixture-apps.js';
import type { ScriptedLlm } from '../support/scripted-llm.js';
import { loginGoal, loginMoves } from '../support/shop-agent-script.js';
import type { Stack } from '../support/worker-context.js';
import { useModelStack } from '../support/model-stack.js';
import { seedProject } from '../../src/db/queries/admin.js';
import { firstShortIdOf } from '../support/row-ids.js';

// A newcomer's first hour, in Chromium on the real stack (Temporal worker, Postgres, the fixture shop, a scripted
// model): from an empty project to a PASSED plan run by clicking and typing in the dashboard only. Every request
// the page makes is recorded: none leaves the dashboard's own pages (no /v1, no other origin).

describe('dashboard: first run, from an empty project to a green plan run', () => {
  let fixture: FixtureApps;
  let llm: ScriptedLlm;
  let stack: Stack;
  let dash: DashboardBrowser;
  let other: Awaited<ReturnType<typeof seedProject>>;
  const router = createRouter();
  /** Every URL the newcomer's page requested, and the text of every answer it got (for the secret check). */
  const requested: string[] = [];
  const answers: Promise<string>[] = [];
  const newPages = new Set<string>();
  let shop = '';
  const appShortId = () => shop;

  /** The project's rows of a table. */
  const count = (
    table:
      | 'applications'
      | 'environments'
      | 'configs'
      | 'test_cases'
      | 'test_plans'
      | 'runs'
      | 'device_presets'
      | 'scenarios',
  ) => countRows(stack.db, table, stack.tenant.projectId);

  /** The page passes axe, and its path is measured against the budget at the end. */
  const checkPage = async (page: Page) => {
    await expectAccessible(page);
    newPages.add(new URL(page.url()).pathname + new URL(page.url()).search);
  };

  const rig = useModelStack({ dashboard: true });
  beforeAll(async () => {
    ({ fixture, llm, stack, dash } = rig);
    other = await seedProject(stack.db, { organization: 'Globex', project: 'Elsewhere' });
    dash.page.on('request', (r) => requested.push(r.url()));
    dash.page.on('response', (r) => {
      if (['document', 'fetch', 'xhr', 'image'].includes(r.request().resourceType()))
        answers.push(r.text().catch(() => ''));
    });
  }, 180_000);

  it('guides a newcomer from nothing to a PASSED plan run and a passing badge, through the dashboard only', async () => {
    const page = dash.page;
    await dash.signIn(stack.tenant.token);
    // Signed in, an empty project's runs page points the way.
    await page.getByRole('link', { name: 'Set up a first test' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Get started');
    await checkPage(page);

    // 1. The application and its URL. A URL of another scheme is refused next to the field, and nothing is written.
    await page.getByRole('link', { name: 'Add the application' }).click();
    await page.getByLabel('Application name').fill('Shop');
    await page.getByLabel('URL tests start from').fill('ftp://shop.example.com/login');
    await page.getByRole('button', { name: 'Add the application' }).click();
    await expect.poll(() => page.locator('#environmentUrl-error').textContent()).toContain('http(s) URL');
    expect(await page.getByLabel('URL tests start from').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Application name').inputValue()).toBe('Shop');
    expect(await count('applications')).toBe(0);
    await checkPage(page);
    await page.getByLabel('URL tests start from').fill(`${fixture.url}/shop/login`);
    await page.getByRole('button', { name: 'Add the application' }).click();
    await page.waitForURL(/\/start$/);
    expect(await page.getByText('(done)').count()).toBe(1);
    shop = await firstShortIdOf(stack.db, 'applications', stack.tenant.projectId);

    // 2. The shopper's credentials: the e-mail plain, the password a secret (typed with the keyboard only).
    for (const config of [
      { name: 'SHOP_EMAIL', value: shopCredentials.email, secret: false },
      { name: 'SHOP_PASSWORD', value: shopCredentials.password, secret: true },
    ]) {
      await page.getByRole('link', { name: 'Add a config' }).click();
      await page.getByLabel('Name').focus();
      await page.keyboard.type(config.name);
      await page.keyboard.press('Tab');
      await page.keyboard.type(config.value);
      await page.keyboard.press('Tab');
      if (config.secret) await page.keyboard.press('Space');
      await page.keyboard.press('Tab'); // the type
      await page.keyboard.press('Tab'); // the submit button
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/start$/);
    }
    expect(await count('configs')).toBe(2);

    // 3. The first goal; the burn-in starts at once. A name over the API's limit is refused inline first.
    router.add(loginGoal, loginMoves);
    llm.enqueue(...loginMoves.map(() => router.reply));
    await page.getByRole('link', { name: 'Write a test from a goal' }).click();
    await checkPage(page);
    await page.getByLabel('Name', { exact: true }).fill('x'.repeat(81));
    await page.getByLabel('Goal').fill(loginGoal);
    await page.getByLabel('{{SHOP_EMAIL}}').check();
    await page.getByLabel('{{SHOP_PASSWORD}} (secret)').check();
    await page.getByRole('button', { name: 'Create and start the burn-in' }).click();
    await expect.poll(() => page.locator('#name-error').textContent()).toMatch(/80/);
    expect(await count('test_cases')).toBe(0);
    expect(await page.getByLabel('{{SHOP_PASSWORD}} (secret)').isChecked()).toBe(true);
    await page.getByLabel('Name', { exact: true }).fill('Mug in the cart');
    await page.getByRole('button', { name: 'Create and start the burn-in' }).click();
    await page.waitForURL(/\/test-cases\/[0-9a-f-]{36}$/);

    // 4. The burn-in's status updates by itself until the agent recorded the steps; then the test is enabled.
    await page.getByRole('heading', { name: 'Burn-in: COMPLETED' }).waitFor({ timeout: 90_000 });
    // A header row and at least one row per recorded move (the final `done` records nothing).
    expect(
      await page
        .getByRole('table', { name: /Recorded steps/ })
        .getByRole('row')
        .count(),
    ).toBeGreaterThanOrEqual(loginMoves.length);
    await page.getByRole('button', { name: 'Enable', exact: true }).click();
    await page.getByText('Enabled: plan runs include it').waitFor();

    // 5. A plan with the test; its run; the verdict and the badge.
    await page.getByRole('link', { name: 'Get started' }).click();
    await page.getByRole('link', { name: 'Create a test plan' }).click();
    await checkPage(page);
    await page.getByLabel('Name', { exact: true }).fill('Smoke');
    expect(await page.getByRole('checkbox', { name: /Mug in the cart/ }).isChecked()).toBe(true);
    await page.getByLabel('E-mail the result to').fill('qa@shop.example.com, not an address');
    await page.getByRole('button', { name: 'Create the plan' }).click();
    await expect.poll(() => page.locator('#emailRecipients-error').textContent()).toBeTruthy();
    expect(await count('test_plans')).toBe(0);
    await page.getByLabel('E-mail the result to').fill('');
    await page.getByRole('button', { name: 'Create the plan' }).click();
    await page.waitForURL(/\/test-plans\/pln/);
    await checkPage(page);
    await page.getByRole('button', { name: 'Run this plan' }).click();
    await page.waitForURL(/\/runs\/run/);
    await page.locator('#run-live dd .status.PASSED').waitFor({ timeout: 90_000 });
    const run = await stack.db
      .selectFrom('runs')
      .select(['status', 'result'])
      .where('project_id', '=', stack.tenant.projectId)
      .executeTakeFirstOrThrow();
    expect(run).toEqual({ status: 'COMPLETED', result: 'PASSED' });

    await page.getByRole('link', { name: 'Get started' }).click();
    expect(await page.getByRole('img', { name: 'Test status: passing' }).count()).toBe(1);
    expect(await page.getByText('(done)').count()).toBe(6);
    await checkPage(page);

    // Nothing but the dashboard's own pages: same origin, never the REST API, nothing blocked.
    const outside = requested.filter(
      (u) => !u.startsWith(`${dash.url}/`) || /^\/(v1|docs)(\/|$)/.test(new URL(u).pathname),
    );
    expect(outside).toEqual([]);
    expect(dash.blocked).toEqual([]);
    expect(requested.some((u) => u.endsWith('/start/badge.svg'))).toBe(true);
    // The secret was typed once and never came back in any page, fragment or image.
    const texts = await Promise.all(answers);
    expect(texts.length).toBeGreaterThan(20);
    expect(texts.filter((t) => t.includes(shopCredentials.password))).toEqual([]);
  }, 300_000);

  it("changes the project settings and an environment's basic auth; refused input changes nothing", async () => {
    const page = dash.page;
    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    await checkPage(page);
    await page.getByLabel('Retries of a failed test (0 to 3)').fill('7');
    await page.getByLabel('Quarantine flaky tests automatically').check();
    await page.getByRole('button', { name: 'Save the settings' }).click();
    await expect.poll(() => page.locator('#retries-error').textContent()).toMatch(/3/);
    await checkPage(page);
    const before = (await stack.call('GET', '/v1/project/settings')).body;
    expect(before).toMatchObject({ retries: 1, quarantine: null, healPolicy: 'review' });
    await page.getByLabel('Retries of a failed test (0 to 3)').fill('2');
    await page.getByLabel('At a flake rate of (percent)').fill('30');
    await page.getByLabel('Over at least this many of the last finished runs').fill('5');
    await page.getByLabel('Save them as the next steps version at once').check();
    await page.getByRole('button', { name: 'Save the settings' }).click();
    await page.getByText('Saved.').waitFor();
    expect((await stack.call('GET', '/v1/project/settings')).body).toMatchObject({
      retries: 2,
      quarantine: { flakeRate: 0.3, minRuns: 5 },
      healPolicy: 'auto',
    });

    await page.getByRole('link', { name: 'Applications' }).click();
    await page
      .getByRole('row', { name: /Staging/ })
      .getByRole('link', { name: 'Edit' })
      .click();
    await checkPage(page);
    await page.getByLabel('URL tests start from').fill('javascript:alert(1)');
    await page.getByLabel('Username').fill('guard');
    await page.getByLabel('Password').fill('basic-auth-pw-1');
    await page.getByRole('button', { name: 'Save the environment' }).click();
    await expect.poll(() => page.locator('#environmentUrl-error').textContent()).toBeTruthy();
    expect(await page.getByLabel('Password').inputValue()).toBe('');
    const env = async () =>
      (await stack.call('GET', `/v1/applications/${appShortId()}/environments`)).body.environments[0];
    expect((await env()).access.httpCredentials).toBeNull();
    await page.getByLabel('URL tests start from').fill(`${fixture.url}/shop/login`);
    await page.getByLabel('Password').fill('basic-auth-pw-1');
    await page.getByRole('button', { name: 'Save the environment' }).click();
    await page.waitForURL(/\/applications$/);
    expect((await env()).access.httpCredentials).toEqual({ username: 'guard', hasPassword: true });
    await page
      .getByRole('row', { name: /Staging/ })
      .getByRole('link', { name: 'Edit' })
      .click();
    expect(await page.content()).not.toContain('basic-auth-pw-1');
    expect(await page.getByLabel('Username').inputValue()).toBe('guard');
    // Back as it was, so the plan's later runs are not sent to a site that asks for no password.
    await page.getByLabel('Remove basic auth').check();
    await page.getByLabel('Username').fill('');
    await page.getByRole('button', { name: 'Save the environment' }).click();
    await page.waitForURL(/\/applications$/);
    expect((await env()).access.httpCredentials).toBeNull();
  }, 120_000);

  it('schedules the plan: a cron that never fires or does not parse is refused at the field; a good one is listed and deleted', async () => {
    const page = dash.page;
    await page.getByRole('link', { name: 'Test plans' }).click();
    await page.getByRole('link', { name: 'Smoke' }).click();
    const planUrl = page.url();
    const schedules = () => countRows(stack.db, 'test_plan_schedules');
    for (const [cron, message] of [
      ['61 * * * *', /minute|61|range/i],
      ['0 0 31 2 *', /never fires/],
    ] as const) {
      await page.getByLabel('Cron (UTC)').fill(cron);
      await page.getByRole('button', { name: 'Add the schedule' }).click();
      await expect.poll(() => page.locator('#cron-error').textContent()).toMatch(message);
      expect(await schedules()).toBe(0);
    }
    await checkPage(page);
    await page.getByLabel('Cron (UTC)').fill('0 6 * * 1-5');
    await page.getByLabel('Schedule description').fill('Weekday mornings');
    await page.getByRole('button', { name: 'Add the schedule' }).click();
    await page
      .getByRole('row', { name: /Weekday mornings/ })
      .getByRole('button', { name: 'Delete' })
      .waitFor();
    expect(page.url()).toBe(planUrl);
    expect(await schedules()).toBe(1);
    expect(await page.getByRole('cell', { name: 'Weekday mornings' }).count()).toBe(1);
    await page
      .getByRole('row', { name: /Weekday mornings/ })
      .getByRole('button', { name: 'Delete' })
      .click();
    await page.getByText('Not scheduled.').waitFor();
    expect(await schedules()).toBe(0);
  }, 120_000);

  it('adds a device preset: a viewport or locale the API refuses is shown at its field and nothing is stored; deletes it', async () => {
    const page = dash.page;
    const presets = () => count('device_presets');
    await page.getByRole('link', { name: 'Devices' }).click();
    await checkPage(page);
    await page.getByLabel('Preset name').fill('Phone');
    await page.getByLabel('Viewport width (CSS pixels)').fill('100');
    await page.getByLabel('Locale').fill('not a locale');
    await page.getByRole('button', { name: 'Add the device preset' }).click();
    await expect.poll(() => page.locator('#width-error').textContent()).toMatch(/200/);
    expect(await page.locator('#locale-error').textContent()).toMatch(/BCP 47/);
    expect(await presets()).toBe(0);
    await checkPage(page);
    await page.getByLabel('Viewport width (CSS pixels)').fill('390');
    await page.getByLabel('Locale').fill('de-DE');
    await page.getByLabel('Mobile').check();
    await page.getByRole('button', { name: 'Add the device preset' }).click();
    await page.getByRole('row', { name: /Phone/ }).getByRole('button', { name: 'Delete' }).waitFor();
    expect(await presets()).toBe(1);
    expect(await page.getByRole('cell', { name: '390 × 844' }).count()).toBe(1);
    await page.getByRole('row', { name: /Phone/ }).getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No device presets').waitFor();
    expect(await presets()).toBe(0);
  }, 120_000);

  it('adds a scenario: blank instructions are refused at the field and nothing is stored; deletes it', async () => {
    const page = dash.page;
    const scenarios = () => count('scenarios');
    await page.getByRole('link', { name: 'Scenarios' }).click();
    await checkPage(page);
    await page.getByLabel('Scenario name').fill('Full cart');
    await page.getByLabel('Instructions').fill('   ');
    await page.getByRole('button', { name: 'Add the scenario' }).click();
    await expect.poll(() => page.locator('#instructions-error').textContent()).toBeTruthy();
    expect(await scenarios()).toBe(0);
    await checkPage(page);
    await page.getByLabel('Instructions').fill('Sign in as {{SHOP_EMAIL}} and add the mug to the cart');
    await page.getByRole('button', { name: 'Add the scenario' }).click();
    await page
      .getByRole('row', { name: /Full cart/ })
      .getByRole('button', { name: 'Delete' })
      .waitFor();
    expect(await scenarios()).toBe(1);
    await page
      .getByRole('row', { name: /Full cart/ })
      .getByRole('button', { name: 'Delete' })
      .click();
    await page.getByText('No scenarios yet.').waitFor();
    expect(await scenarios()).toBe(0);
  }, 120_000);

  it('edits the plan: its environment per application and e-mail; a bad address is refused at the field and changes nothing', async () => {
    const page = dash.page;
    await page.getByRole('link', { name: 'Test plans' }).click();
    await page.getByRole('link', { name: 'Smoke' }).click();
    const shortId = new URL(page.url()).pathname.split('/').pop()!;
    const plan = async () => (await stack.call('GET', `/v1/test-plans/${shortId}`)).body;
    const before = await plan();
    await page.getByRole('link', { name: 'Edit the plan' }).click();
    await checkPage(page);
    expect(await page.getByRole('checkbox', { name: /Mug in the cart/ }).isChecked()).toBe(true);
    await page.getByLabel('Shop', { exact: true }).selectOption({ label: `Staging (${fixture.url}/shop/login)` });
    await page.getByLabel('E-mail the result to').fill('qa@');
    await page.getByRole('button', { name: 'Save the plan' }).click();
    await expect.poll(() => page.locator('#emailRecipients-error').textContent()).toBeTruthy();
    expect(await plan()).toEqual(before);
    await page.getByLabel('E-mail the result to').fill('qa@shop.example.com');
    await page.getByRole('button', { name: 'Save the plan' }).click();
    await page.waitForURL(new RegExp(`/test-plans/${shortId}$`));
    const after = await plan();
    expect(after.notifications.email).toEqual({ recipients: ['qa@shop.example.com'], notifyOn: 'failure' });
    expect(after.applications).toEqual([
      {
        applicationShortId: appShortId(),
        environmentShortId: expect.stringMatching(/^env/),
        devicePresetShortId: null,
      },
    ]);
    expect(after.testCases).toEqual(before.testCases);
    expect(await page.getByText('qa@shop.example.com (on failure)').count()).toBe(1);
  }, 120_000);

  it('keeps every new page within the size budget', async () => {
    await expectWithinPageBudget(dash, newPages);
    expect(newPages.size).toBeGreaterThanOrEqual(4);
  });

  it("answers another project's session with 404 and changes nothing", async () => {
    const app = await firstShortIdOf(stack.db, 'applications', stack.tenant.projectId);
    const env = await firstShortIdOf(stack.db, 'environments', stack.tenant.projectId);
    const config = await stack.db
      .selectFrom('configs')
      .select('short_id')
      .where('project_id', '=', stack.tenant.projectId)
      .where('name', '=', 'SHOP_PASSWORD')
      .executeTakeFirstOrThrow();
    const plan = await firstShortIdOf(stack.db, 'test_plans', stack.tenant.projectId);
    const preset = (
      await stack.call('POST', '/v1/device-presets', { name: 'Tablet', viewport: { width: 800, height: 1200 } })
    ).body;
    const elsewhere = await dash.signInElsewhere(other.token);
    for (const path of [
      `/applications/${app}/environments/new`,
      `/applications/${app}/environments/${env}/edit`,
      `/configs/${config.short_id}/edit`,
    ]) {
      expect((await elsewhere.goto(`${dash.url}${path}`))!.status(), path).toBe(404);
    }
    await elsewhere.goto(`${dash.url}/start`);
    const csrf = (await elsewhere.locator('input[name=_csrf]').first().getAttribute('value'))!;
    const schedules = () => countRows(stack.db, 'test_plan_schedules');
    const presetCount = () => countRows(stack.db, 'device_presets');
    const before = {
      runs: await count('runs'),
      applications: await count('applications'),
      configs: await count('configs'),
      schedules: await schedules(),
      presets: await presetCount(),
    };
    for (const path of [
      `/test-plans/${plan}/run`,
      `/test-plans/${plan}/schedules`,
      `/applications/${app}/delete`,
      `/configs/${config.short_id}/delete`,
      `/configs/${config.short_id}`,
      `/device-presets/${preset.shortId}/delete`,
    ]) {
      const answer = await elsewhere.request.post(`${dash.url}${path}`, {
        form: { _csrf: csrf, name: 'STOLEN', value: 'x', cron: '@daily' },
      });
      expect(answer.status(), path).toBe(404);
    }
    expect({
      runs: await count('runs'),
      applications: await count('applications'),
      configs: await count('configs'),
      schedules: await schedules(),
      presets: await presetCount(),
    }).toEqual(before);
    expect(await presetCount()).toBe(1);
    await elsewhere.context().close();
  });

  // axe needs scripts in the page, so this one checks what a script-less browser gets; the same forms passed axe above.
  it('works without JavaScript: a refused secret is shown inline (400) without its value, then saved and never shown', async () => {
    const secret = 'nojs-hunter2-value';
    const context = await dash.browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${dash.url}/login`);
    await page.getByLabel('API token').fill(stack.tenant.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((u) => !u.pathname.endsWith('/login'));
    await page.goto(`${dash.url}/new/config`);
    const configsBefore = await count('configs');
    await page.getByLabel('Name').fill('1BAD NAME');
    await page.getByLabel('Value').fill(secret);
    await page.getByLabel('Secret (write-only)').check();
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Add the config' }).click(),
    ]);
    expect(refused.status()).toBe(400);
    expect(await page.locator('#name-error').textContent()).toMatch(/letter or underscore/);
    expect(await refused.text()).not.toContain(secret);
    expect(await page.getByLabel('Value').inputValue()).toBe('');
    expect(await count('configs')).toBe(configsBefore);
    await page.getByLabel('Name').fill('NOJS_SECRET');
    await page.getByLabel('Value').fill(secret);
    await page.getByRole('button', { name: 'Add the config' }).click();
    await page.waitForURL(/\/configs$/);
    expect(await page.getByRole('row', { name: /NOJS_SECRET/ }).textContent()).toContain('secret (set)');
    await page
      .getByRole('row', { name: /NOJS_SECRET/ })
      .getByRole('link', { name: 'Change' })
      .click();
    expect(await page.getByLabel('New value').inputValue()).toBe('');
    expect(await page.content()).not.toContain(secret);
    await context.close();
  });
});
