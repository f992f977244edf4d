import { afterAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { addApplication } from '../support/applications.js';
import { expectAccessible, type DashboardBrowser } from '../support/dashboard.js';
import { expectWithinPageBudget } from '../support/page-checks.js';
import { startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';
import { insertRecordedTestCase } from '../support/recorded.js';
import { useSignedInDashboard, type SignedInDashboard } from '../support/signed-in-dashboard.js';
import { waitForRun, type Stack } from '../support/worker-context.js';
import type { Step } from '../../src/domain/steps.js';
import { saveEditedSteps } from '../../src/services/step-edits.js';

// The step editor and the run comparison, driven in Chromium on the real stack: the runs the editor's "Verify"
// starts are replayed by the in-process Temporal worker in another Chromium against the fixture todo app.

const todoWithText: Step[] = [
  { action: 'navigate', value: '/todo/', description: 'Open the todo app' },
  { action: 'fill', locator: "getByRole('textbox', { name: 'New todo' })", value: 'milk', description: 'Type a todo' },
  { action: 'press', locator: "getByRole('textbox', { name: 'New todo' })", value: 'Enter', description: 'Add it' },
  { action: 'assert_text', value: 'milk', description: 'The todo is shown' },
];

// Recorded in a muddled order, with a step that can never pass: Enter before the text, a missing button.
const muddled: Step[] = [
  { action: 'navigate', value: '/todo/', description: 'Open the todo app' },
  {
    action: 'click',
    locator: "getByRole('button', { name: 'Archive everything' })",
    description: 'A button that does not exist',
  },
  { action: 'press', locator: "getByRole('textbox', { name: 'New todo' })", value: 'Enter', description: 'Add it' },
  {
    action: 'fill',
    locator: "getByRole('textbox', { name: 'New todo' })",
    fallbacks: ["getByPlaceholder('What needs to be done?')"],
    value: 'eggs',
    description: 'Type a todo',
  },
  {
    action: 'assert_visible',
    locator: "getByRole('checkbox', { name: 'eggs' })",
    target: { role: 'checkbox', name: 'eggs' },
    description: 'The todo is listed',
  },
];

/** The image's source is a PNG the dashboard serves to this session. */
async function expectPng(page: Page, img: Locator): Promise<void> {
  const answer = await page.request.get(new URL((await img.getAttribute('src'))!, page.url()).href);
  expect(answer.status()).toBe(200);
  expect(answer.headers()['content-type']).toBe('image/png');
  expect((await answer.body()).subarray(1, 4).toString()).toBe('PNG');
}

describe('dashboard: step editor and run comparison', () => {
  let fixture: FixtureApps;
  let stack: Stack;
  let dash: DashboardBrowser;
  let other: SignedInDashboard['other'];
  const ids: Record<string, string> = {};
  const runs: string[] = [];

  const stored = async (id: string) =>
    stack.db
      .selectFrom('test_cases')
      .select(['steps', 'steps_version'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow() as Promise<{ steps: Step[]; steps_version: number }>;

  /** Presses "Verify" on the editor and follows the run it starts to its end. */
  const verify = async (page: Page) => {
    await page.getByRole('button', { name: /^Verify: run version/ }).click();
    await page.waitForURL(/\/runs\/[^/]+$/);
    const shortId = new URL(page.url()).pathname.split('/').pop()!;
    runs.push(shortId);
    return waitForRun(stack, shortId);
  };

  // The in-process worker replays the runs "Verify" starts against the fixture todo app.
  const rig = useSignedInDashboard({
    stack: { worker: true, stepTimeoutMs: 3_000 },
    timeoutMs: 180_000,
    beforeSignIn: async () => {
      ({ stack, dash, other } = rig);
      fixture = await startFixtureApps();
      const applicationId = (await addApplication(stack, 'Todo', { name: 'Local', url: `${fixture.url}/todo/` })).id;
      const add = async (name: string, steps: Step[]) =>
        (ids[name] = await insertRecordedTestCase(stack.db, {
          projectId: stack.tenant.projectId,
          applicationId,
          name,
          steps,
        }));
      await add('todo text', todoWithText);
      await add('todo muddled', muddled);
    },
  });
  afterAll(() => fixture?.stop());

  it("edits an assertion's expected text: a new version, which the next run replays (FAILED, then PASSED once corrected)", async () => {
    const { page } = dash;
    await page.goto(`${dash.url}/test-cases/${ids['todo text']}`);
    await page.getByRole('link', { name: 'Edit the steps' }).click();
    await page.getByRole('heading', { name: 'Steps of todo text' }).waitFor();
    await expectAccessible(page);

    const expected = page.getByLabel('Expected value of step 4');
    expect(await expected.inputValue()).toBe('milk');
    await expected.fill('bread');
    // With JavaScript the form posts through htmx and only the editor is swapped: the page stays loaded.
    let navigations = 0;
    const count = (frame: { parentFrame(): unknown }) => frame.parentFrame() === null && navigations++;
    page.on('framenavigated', count);
    await page.getByRole('button', { name: 'Save as version 2' }).first().click();
    await page.getByText('Saved as version 2. The next run uses it.').waitFor();
    page.off('framenavigated', count);
    expect(navigations).toBe(0);
    const v2 = await stored(ids['todo text']!);
    expect(v2.steps_version).toBe(2);
    expect(v2.steps).toEqual(todoWithText.map((s, i) => (i === 3 ? { ...s, value: 'bread' } : s)));

    const failed = await verify(page);
    expect(failed.result).toBe('FAILED');
    expect(failed.runTestCases[0].error).toContain('expected the text "bread"');
    await expect
      .poll(() => page.getByRole('region', { name: /^todo text/ }).textContent(), { timeout: 30_000 })
      .toContain('Failing step: step 4 — The todo is shown');

    await page.goto(`${dash.url}/test-cases/${ids['todo text']}/steps`);
    // The run stopped at step 4: its screenshot is shown with that step.
    const shot = page.getByRole('img', { name: `Where run ${runs[0]} stopped at step 4` });
    await shot.waitFor();
    await expectPng(page, shot);
    await page.getByLabel('Expected value of step 4').fill('milk');
    await page.getByRole('button', { name: 'Save as version 3' }).first().click();
    await page.getByText('Saved as version 3. The next run uses it.').waitFor();
    expect((await stored(ids['todo text']!)).steps).toEqual(todoWithText);
    const passed = await verify(page);
    expect(passed.result).toBe('PASSED');
  }, 90_000);

  it('deletes and reorders steps with plain forms (JavaScript off), saved as one new version that passes', async () => {
    const noScript = await dash.browser.newContext({
      javaScriptEnabled: false,
      storageState: await dash.context.storageState(),
    });
    try {
      const page = await noScript.newPage();
      await page.goto(`${dash.url}/test-cases/${ids['todo muddled']}/steps`);
      await page.getByRole('button', { name: 'Delete step 2' }).click();
      // Only the draft changed: the steps are still version 1 until "Save".
      await page.getByText('Editing version 1: unsaved changes').waitFor();
      expect((await stored(ids['todo muddled']!)).steps_version).toBe(1);
      expect(await page.getByLabel('Intent of step 2').inputValue()).toBe('Add it');
      await page.getByRole('button', { name: 'Move step 3 up' }).click();
      expect(await page.getByLabel('Intent of step 2').inputValue()).toBe('Type a todo');
      expect(await page.getByRole('group', { name: /Step 2: fill \(was step 4\)/ }).count()).toBe(1);
      await page.getByRole('button', { name: 'Save as version 2' }).first().click();
      await page.waitForURL(/\/steps\?saved=2$/);
      await page.getByText('Saved as version 2.').waitFor();
      const saved = await stored(ids['todo muddled']!);
      expect(saved.steps_version).toBe(2);
      expect(saved.steps).toEqual([muddled[0], muddled[3], muddled[2], muddled[4]]);
      const run = await verify(page);
      expect(run.result).toBe('PASSED');

      // The element assertion's expectation is the recorded target's name: expecting another one fails the replay.
      await page.goto(`${dash.url}/test-cases/${ids['todo muddled']}/steps`);
      expect(await page.getByLabel('Fallback locators of step 2 (one per line)').inputValue()).toBe(
        "getByPlaceholder('What needs to be done?')",
      );
      expect(await page.getByRole('group', { name: /^Step 4: assert_visible/ }).textContent()).toContain(
        'Target as recorded: checkbox named “eggs”',
      );
      await page.getByLabel('Expected text of step 4').fill('ham');
      await page.getByRole('button', { name: 'Save as version 3' }).first().click();
      await page.getByText('Saved as version 3.').waitFor();
      expect((await stored(ids['todo muddled']!)).steps[3]!.target).toEqual({ role: 'checkbox', name: 'ham' });
      const failed = await verify(page);
      expect(failed.result).toBe('FAILED');
      expect(failed.runTestCases[0].failedStepIndex).toBe(3);
    } finally {
      await noScript.close();
    }
  }, 75_000);

  it('refuses a locator replay could not parse, beside its field, and changes nothing', async () => {
    const { page } = dash;
    const before = await stored(ids['todo muddled']!);
    await page.goto(`${dash.url}/test-cases/${ids['todo muddled']}/steps`);
    // Moving in place (htmx): the draft changes, the steps do not.
    await page.getByRole('button', { name: 'Move step 2 down' }).click();
    await page.getByText(`Editing version ${before.steps_version}: unsaved changes`).waitFor();
    expect(await page.getByLabel('Intent of step 3').inputValue()).toBe('Type a todo');
    await page.getByRole('link', { name: 'Discard changes' }).click();
    await page.getByText(`Editing version ${before.steps_version}. Saving`).waitFor();
    const locator = page.getByLabel('Locator of step 2');
    await locator.fill("getByRole('textbox', { name: 'New todo' }");
    await page.getByLabel('Intent of step 2').fill('Type the todo');
    await page
      .getByRole('button', { name: `Save as version ${before.steps_version + 1}` })
      .first()
      .click();
    await page.getByText('Not saved: 1 problem(s) below.').waitFor();
    expect(await locator.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await locator.getAttribute('aria-describedby'))!;
    expect(await page.locator(`[id="${describedBy}"]`).textContent()).toContain('not a locator Proctor can replay');
    // The person's draft is kept for correcting, and nothing was written.
    expect(await locator.inputValue()).toBe("getByRole('textbox', { name: 'New todo' }");
    expect(await page.getByLabel('Intent of step 2').inputValue()).toBe('Type the todo');
    await expectAccessible(page);
    expect(await stored(ids['todo muddled']!)).toEqual(before);

    // Emptying an assertion's expectation would make it pass always: refused as well.
    await page.goto(`${dash.url}/test-cases/${ids['todo text']}/steps`);
    await page.getByLabel('Expected value of step 4').fill('');
    await page
      .getByRole('button', { name: /^Save as version/ })
      .first()
      .click();
    await page.getByText('this assert_text step needs a value').waitFor();
    expect((await stored(ids['todo text']!)).steps).toEqual(todoWithText);
  }, 30_000);

  it('never overwrites steps that changed since the page was loaded, and shows recorded text as text', async () => {
    const payload = '<img src=x onerror="document.title=1">';
    const id = await insertRecordedTestCase(stack.db, {
      projectId: stack.tenant.projectId,
      applicationId: (
        await stack.db
          .selectFrom('test_cases')
          .select('application_id')
          .where('id', '=', ids['todo text']!)
          .executeTakeFirstOrThrow()
      ).application_id,
      name: 'todo payload',
      steps: todoWithText.map((s, i) =>
        i === 1 ? { ...s, description: payload, value: `"><script>document.title=2</script>` } : s,
      ),
    });
    const { page } = dash;
    await page.goto(`${dash.url}/test-cases/${id}/steps`);
    expect(await page.getByLabel('Intent of step 2').inputValue()).toBe(payload);
    expect(await page.locator('img[src="x"], main script').count()).toBe(0);
    await page.getByLabel('Intent of step 4').fill('Mine');

    // Someone else saves first (another tab, say): this page's draft is of version 1, which is gone.
    const theirs = todoWithText.map((s, i) => (i === 3 ? { ...s, description: 'Theirs' } : s));
    expect(
      await saveEditedSteps(stack, {
        projectId: stack.tenant.projectId,
        testCaseId: id,
        basedOnVersion: 1,
        steps: theirs,
      }),
    ).toEqual({ version: 2 });
    await page.getByRole('button', { name: 'Save as version 2' }).first().click();
    await page.getByText('The steps changed since you opened them (now version 2)').waitFor();
    expect(await page.getByLabel('Intent of step 4').inputValue()).toBe('Theirs');
    expect(await stored(id)).toEqual({ steps: theirs, steps_version: 2 });
    expect(await page.title()).toBe('Steps of todo payload · Proctor');
  }, 30_000);

  it('compares two runs test by test: result, failing step, screenshot, signals', async () => {
    const { page } = dash;
    const [failedRun, passedRun] = runs;
    await page.goto(`${dash.url}/runs/${failedRun}`);
    await page.getByRole('link', { name: 'Compare with another run' }).click();
    expect(await page.getByLabel('First run').inputValue()).toBe(failedRun);
    await page.getByLabel('Second run').selectOption(passedRun!);
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.waitForURL(new RegExp(`/compare\\?a=${failedRun}&b=${passedRun}$`));
    await page.getByText('1 of 1 test(s) differ').waitFor();
    const section = page.getByRole('region', { name: 'todo text (differs)' });
    const cells = async (row: string) =>
      section
        .getByRole('row', { name: new RegExp(`^${row}`) })
        .getByRole('cell')
        .allTextContents();
    expect(await cells('Result')).toEqual(['FAILED', 'PASSED']);
    expect((await cells('Failing step'))[0]).toContain('step 4 — The todo is shown');
    expect((await cells('Failing step'))[1]).toBe('none');
    expect(await cells('Signals')).toEqual(
      expect.arrayContaining([expect.stringMatching(/^\d+ console, \d+ exception, \d+ network, \d+ a11y$/)]),
    );
    const shot = section.getByRole('img', { name: `todo text in run ${failedRun} where it stopped` });
    await expectPng(page, shot);
    expect((await cells('Screenshot'))[1]).toBe('none');
    await expectAccessible(page);

    // The same run twice: nothing differs.
    await page.goto(`${dash.url}/compare?a=${passedRun}&b=${passedRun}`);
    await page.getByText('0 of 1 test(s) differ').waitFor();
    expect(await page.getByRole('region', { name: 'todo text (same)' }).count()).toBe(1);
    expect((await page.goto(`${dash.url}/compare?a=${passedRun}&b=run_madeup`))?.status()).toBe(404);
  }, 30_000);

  it("keeps to the size budget, and another project's session sees none of it", async () => {
    await expectWithinPageBudget(dash, [`/test-cases/${ids['todo text']}/steps`, `/compare?a=${runs[0]}&b=${runs[1]}`]);
    const page = await dash.signInElsewhere(other.token);
    try {
      expect((await page.goto(`${dash.url}/test-cases/${ids['todo text']}/steps`))?.status()).toBe(404);
      expect((await page.goto(`${dash.url}/compare?a=${runs[0]}&b=${runs[1]}`))?.status()).toBe(404);
      // A post with the other session's own valid CSRF token still finds no such test case.
      await page.goto(`${dash.url}/runs`);
      const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
      const posted = await page.request.post(`${dash.url}/test-cases/${ids['todo text']}/verify`, {
        form: { _csrf: csrf },
        maxRedirects: 0,
      });
      expect(posted.status()).toBe(404);
    } finally {
      await page.context().close();
    }
    expect(dash.blocked).toEqual([]);
  }, 60_000);
});
