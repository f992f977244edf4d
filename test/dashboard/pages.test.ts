import { mkdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { addApplication } from '../support/applications.js';
import { expectAccessible, type DashboardBrowser } from '../support/dashboard.js';
import { atEachScreenSize, expectWithinPageBudget } from '../support/page-checks.js';
import { startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';
import { brokenSteps, insertRecordedTestCase, loginSteps, todoSteps } from '../support/recorded.js';
import { useSignedInDashboard, type SignedInDashboard } from '../support/signed-in-dashboard.js';
import { waitForRun, type Stack } from '../support/worker-context.js';
import { saveGenerationResult } from '../../src/db/queries/execution.js';
import { insertTestCase } from '../../src/db/queries/test-cases.js';
import { keepHealedSteps } from '../../src/services/heal-proposals.js';
import { firstShortIdOf } from '../support/row-ids.js';
import { navItems } from '../../src/web/nav.js';

// The dashboard's runs and test case pages on the real stack (Temporal worker, Postgres, Chromium running
// the tests, the dashboard in another Chromium that reaches nothing but loopback).

const shots = 'test-results/dashboard';

describe('dashboard: runs and test cases', () => {
  let fixture: FixtureApps;
  let stack: Stack;
  let dash: DashboardBrowser;
  let other: SignedInDashboard['other'];
  const ids: Record<string, string> = {};
  let smokePlan: string;
  let todoPlan: string;
  let shopAppId: string;

  // The in-process worker runs the plans' tests against the fixture apps.
  const rig = useSignedInDashboard({
    stack: { worker: true },
    timeoutMs: 180_000,
    beforeSignIn: async () => {
      ({ stack, dash, other } = rig);
      fixture = await startFixtureApps();
      shopAppId = (await addApplication(stack, 'Shop', { name: 'Local', url: `${fixture.url}/shop/login` })).id;
      const todoAppId = (await addApplication(stack, 'Todo', { name: 'Local', url: `${fixture.url}/todo/` })).id;
      const add = async (name: string, applicationId: string, steps: typeof loginSteps) =>
        (ids[name] = await insertRecordedTestCase(stack.db, {
          projectId: stack.tenant.projectId,
          applicationId,
          name,
          steps,
        }));
      await add('login', shopAppId, loginSteps);
      // The button's recorded locator no longer matches; its recorded fallback does: the run heals the step.
      await add(
        'login moved',
        shopAppId,
        loginSteps.map((step, i) =>
          i === 3 ? { ...step, locator: "getByRole('button', { name: 'Log in' })", fallbacks: [step.locator!] } : step,
        ),
      );
      await add('broken', todoAppId, brokenSteps);
      await add('todo milk', todoAppId, todoSteps('milk'));
      await stack.db.updateTable('test_cases').set({ is_enabled: false }).where('id', '=', ids['todo milk']!).execute();

      const plan = async (name: string, testCaseIds: string[]) =>
        (await stack.call('POST', '/v1/test-plans', { name, testCaseIds })).body.shortId as string;
      smokePlan = await plan('Smoke', [ids.login!, ids['login moved']!, ids.broken!]);
      todoPlan = await plan('Todo', [ids.broken!, ids['todo milk']!]);
    },
  });
  afterAll(() => fixture?.stop());

  it('opens a run from its API url, follows it live to the end, shows the failing step, its screenshot and the trace', async () => {
    const started = await stack.call('POST', '/v1/run', { testPlanShortId: smokePlan, branch: 'feature-x' });
    const { url, shortId } = started.body.run;
    expect(url).toBe(`${dash.url}/runs/${shortId}`);

    const { page } = dash;
    let navigations = 0;
    page.on('framenavigated', (frame) => frame === page.mainFrame() && navigations++);
    await page.goto(url);
    navigations = 0;
    // Still running when opened (two tests in Chromium take seconds): the page follows it without a reload.
    await page.getByText('Finished').waitFor();
    expect(['INITIATED', 'RUNNING']).toContain(
      await page.locator('dl.facts dd').first().locator('.status').textContent(),
    );
    await expect.poll(() => page.locator('dl.facts dd').first().textContent(), { timeout: 90_000 }).toBe('COMPLETED');
    expect(navigations).toBe(0);
    const run = await waitForRun(stack, shortId);
    expect(run.result).toBe('FAILED');

    const broken = page.getByRole('region', { name: /^broken/ });
    await expect
      .poll(() => broken.textContent())
      .toContain(
        "Failing step: step 2 — A button that does not exist (click getByRole('button', { name: 'Archive everything' }))",
      );
    const screenshot = broken.getByRole('img', { name: 'Screenshot of broken where it stopped' });
    await expect
      .poll(() => screenshot.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
      .toBeGreaterThan(100);
    const moved = page.getByRole('region', { name: /^login moved/ });
    await expect
      .poll(() => moved.textContent())
      .toContain(
        "Healed stepsstep 4 via fallback: getByRole('button', { name: 'Sign in' }) (was getByRole('button', { name: 'Log in' }))",
      );
    expect(await page.getByRole('row', { name: /^login moved/ }).textContent()).toMatch(/COMPLETEDPASSED[\d.]+ m?s1$/);
    await expectAccessible(page);

    await broken.getByRole('link', { name: 'Open the trace of broken' }).click();
    await page.waitForURL(/\/trace-viewer\/index\.html\?trace=/);
    // Playwright's trace viewer lists the replayed actions, the failing click on the missing button among them.
    await page
      .getByText(/Archive everything/)
      .first()
      .waitFor({ timeout: 30_000 });
    expect(dash.blocked).toEqual([]);
  });

  it('lists runs with filters by plan, status and branch', async () => {
    const { page } = dash;
    await page.goto(`${dash.url}/runs`);
    await expectAccessible(page);
    const rows = () => page.locator('tbody tr').count();
    expect(await rows()).toBe(1);
    await page.getByLabel('Branch').fill('main');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No runs match.').waitFor();
    await page.getByLabel('Branch').fill('feature-x');
    await page.getByLabel('Status').selectOption('COMPLETED');
    await page.getByLabel('Plan').selectOption({ label: 'Smoke' });
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/branch=feature-x/);
    expect(await rows()).toBe(1);
    await page.getByLabel('Plan').selectOption({ label: 'Todo' });
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No runs match.').waitFor();
  });

  it('enables a test case from its page, and the next plan run includes it', async () => {
    const before = await stack.call('POST', '/v1/run', { testPlanShortId: todoPlan });
    expect(before.body.run.testCount).toBe(1);

    const { page } = dash;
    await page.goto(`${dash.url}/test-cases`);
    await expectAccessible(page);
    await page.getByLabel('In plans').selectOption('no');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/enabled=no/);
    await page.getByRole('link', { name: 'todo milk' }).click();
    await page.getByRole('heading', { level: 1, name: 'todo milk' }).waitFor();
    await expectAccessible(page);
    expect(await page.getByText('Disabled: plan runs leave it out').count()).toBe(1);
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByText('Enabled: plan runs include it').waitFor();

    const after = await stack.call('POST', '/v1/run', { testPlanShortId: todoPlan });
    expect(after.body.run.testCount).toBe(2);
    const run = await waitForRun(stack, after.body.run.shortId);
    expect(run.runTestCases.find((t: any) => t.name === 'todo milk')).toMatchObject({
      status: 'COMPLETED',
      result: 'PASSED',
    });
  });

  it('downloads the Playwright export of a test case', async () => {
    const { page } = dash;
    await page.goto(`${dash.url}/test-cases/${ids['todo milk']}`);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download as a Playwright spec' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('todo-milk.spec.ts');
    const chunks: Buffer[] = [];
    for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
    const spec = Buffer.concat(chunks).toString('utf8');
    expect(spec).toContain("import { test, expect } from '@playwright/test'");
    expect(spec).toContain("getByRole('textbox', { name: 'New todo' })");
  });

  it('accepts a heal proposal, which becomes the current steps version', async () => {
    const healedLocator = "getByRole('button', { name: 'Anmelden' })";
    const steps = loginSteps.map((s, i) => (i === 3 ? { ...s, locator: healedLocator, fallbacks: [s.locator!] } : s));
    const kept = await keepHealedSteps(stack, {
      projectId: stack.tenant.projectId,
      testCaseId: ids.login!,
      basedOnVersion: 1,
      steps,
      healed: [
        {
          index: 3,
          from: loginSteps[3]!.locator,
          to: healedLocator,
          via: 'llm',
          reason: 'the button is labelled in German',
        },
      ],
    });
    expect(kept).toEqual({ kept: 'proposed', version: 2 });

    const { page } = dash;
    await page.goto(`${dash.url}/test-cases/${ids.login}`);
    const proposal = page.getByRole('region', { name: /Version 2 proposed by a heal/ });
    await expect.poll(() => proposal.textContent()).toContain('PENDING');
    await expectAccessible(page);
    await proposal.getByRole('button', { name: 'Accept version 2' }).click();
    await expect
      .poll(() => page.getByRole('region', { name: /Version 2 proposed by a heal/ }).textContent())
      .toContain('ACCEPTED');
    expect(await page.getByText('Current version: 2.').count()).toBe(1);
    const api = await stack.call('GET', `/v1/test-cases/${ids.login}`);
    expect(api.body.steps.version).toBe(2);
    expect(api.body.steps.steps[3].locator).toBe(healedLocator);
  });

  it('rejects a heal proposal: the current steps stay as they were', async () => {
    const current = (await stack.call('GET', `/v1/test-cases/${ids.login}`)).body.steps;
    const rejectedLocator = "getByRole('button', { name: 'Continuer' })";
    const steps = current.steps.map((s: (typeof loginSteps)[number], i: number) =>
      i === 3 ? { ...s, locator: rejectedLocator, fallbacks: [s.locator!] } : s,
    );
    const kept = await keepHealedSteps(stack, {
      projectId: stack.tenant.projectId,
      testCaseId: ids.login!,
      basedOnVersion: current.version,
      steps,
      healed: [
        {
          index: 3,
          from: current.steps[3].locator,
          to: rejectedLocator,
          via: 'llm',
          reason: 'a French label on the preview',
        },
      ],
    });
    const proposed = current.version + 1;
    expect(kept).toEqual({ kept: 'proposed', version: proposed });

    const { page } = dash;
    await page.goto(`${dash.url}/test-cases/${ids.login}`);
    const proposal = page.getByRole('region', { name: new RegExp(`Version ${proposed} proposed by a heal`) });
    await expect.poll(() => proposal.textContent()).toContain('PENDING');
    await proposal.getByRole('button', { name: `Reject version ${proposed}` }).click();
    await expect
      .poll(() =>
        page.getByRole('region', { name: new RegExp(`Version ${proposed} proposed by a heal`) }).textContent(),
      )
      .toContain('REJECTED');
    expect(await page.getByText(`Current version: ${current.version}.`).count()).toBe(1);
    expect(await page.getByRole('button', { name: `Accept version ${proposed}` }).count()).toBe(0);
    const api = await stack.call('GET', `/v1/test-cases/${ids.login}`);
    expect(api.body.steps).toEqual(current);
    expect(api.body.healProposals).toEqual([]);
  });

  it('shows a burn-in live: GENERATING, then the recorded steps, without a reload', async () => {
    const id = crypto.randomUUID();
    await insertTestCase(stack.db, {
      id,
      projectId: stack.tenant.projectId,
      applicationId: shopAppId,
      name: 'Being recorded',
      goal: 'Sign in',
      expectedResult: 'Signed in',
      labels: [],
      configIds: [],
      scenarioId: null,
      resumeFromTestCaseId: null,
      waitForTestCaseIds: [],
    });
    const { page } = dash;
    await page.goto(`${dash.url}/test-cases/${id}`);
    // Nothing recorded yet: enabling is refused, in words, and nothing changes.
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Enable' }).click(),
    ]);
    expect(refused.status()).toBe(409);
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('has no recorded steps yet');
    expect((await stack.call('GET', `/v1/test-cases/${id}`)).body.isEnabled).toBe(false);
    await page.goto(`${dash.url}/test-cases/${id}`);
    let navigations = 0;
    page.on('framenavigated', (frame) => frame === page.mainFrame() && navigations++);
    await page.getByRole('heading', { name: 'Burn-in: GENERATING' }).waitFor();
    await saveGenerationResult(stack.db, id, { status: 'COMPLETED', steps: loginSteps });
    await page.getByRole('heading', { name: 'Burn-in: COMPLETED' }).waitFor({ timeout: 15_000 });
    await page.getByRole('table', { name: 'Recorded steps, version 1' }).waitFor();
    expect(navigations).toBe(0);
  });

  it("answers 404 for another project's run and test case, and for made-up ids", async () => {
    const run = await firstShortIdOf(stack.db, 'runs', stack.tenant.projectId);
    const page = await dash.signInElsewhere(other.token);
    try {
      await page.waitForURL(`${dash.url}/runs`);
      expect(await page.getByText('No runs match.').count()).toBe(1);
      for (const path of [
        `/runs/${run}`,
        `/test-cases/${ids.login}`,
        `/runs/${run}/live`,
        `/test-cases/${ids.login}/export`,
      ]) {
        const res = await page.goto(`${dash.url}${path}`);
        expect(res?.status(), path).toBe(404);
      }
      await page.goto(`${dash.url}/runs/${run}`);
      await page.getByRole('heading', { name: 'Not found' }).waitFor();
      await expectAccessible(page);
    } finally {
      await page.context().close();
    }
    for (const path of ['/runs/run_doesnotexist', '/test-cases/not-a-uuid', `/test-cases/${crypto.randomUUID()}`]) {
      expect((await dash.page.goto(`${dash.url}${path}`))?.status(), path).toBe(404);
    }
  });

  it('every page: axe-clean at 1280x800 and 390x844, never wider than the phone, under 50 KB; screenshots kept', async () => {
    const run = await firstShortIdOf(stack.db, 'runs', stack.tenant.projectId);
    const pages: [string, string][] = [
      ...navItems.map((item): [string, string] => [item.key, item.path]),
      ['run', `/runs/${run}`],
      ['test-case', `/test-cases/${ids.login}`],
      ['test-case-broken', `/test-cases/${ids.broken}`],
      ['test-plan', `/test-plans/${smokePlan}`],
    ];
    mkdirSync(shots, { recursive: true });
    const wide: Record<string, number> = {};
    await atEachScreenSize(dash, async (page, { label: size, viewport, phone }) => {
      for (const [name, path] of pages) {
        await page.goto(`${dash.url}${path}`);
        await expectAccessible(page);
        await page.screenshot({ path: `${shots}/all-${name}-${size}.png`, fullPage: true });
        // Against the phone's 390 px, not innerWidth: a mobile browser widens its layout viewport to fit wide content.
        const width = await page.evaluate(() => Math.max(document.documentElement.scrollWidth, window.innerWidth));
        if (phone && width > viewport.width) wide[path] = width;
      }
    });
    expect(wide).toEqual({});

    await expectWithinPageBudget(dash, ['/login', ...pages.map(([, path]) => path)]);
    expect(dash.blocked).toEqual([]);
  }, 240_000);
});
