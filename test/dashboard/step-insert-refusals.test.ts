import { describe, expect, it } from 'vitest';
import { expectAccessible } from '../support/dashboard.js';
import { insertRecordedTestCase, loginSteps, applicationIdOf } from '../support/recorded.js';
import { useSignedInDashboard } from '../support/signed-in-dashboard.js';
import { countRows } from '../support/row-counts.js';

// "Insert a step here" is offered only where an insertion can start: a mobile test's step editor shows why not
// instead of the links and the form, and a post that can no longer start (the environment went away after the
// form was opened) is refused on the form with the reason, nothing written. Chromium on the real app (Postgres).

describe('dashboard: step insertion refused up front', () => {
  let android: string;
  let web: { id: string; shortId: string };
  const rig = useSignedInDashboard({
    beforeSignIn: async (r) => {
      const app = async (name: string, kind: string) => {
        const shortId = (await r.stack.call('POST', '/v1/applications', { name, kind })).body.shortId as string;
        return {
          id: await applicationIdOf(r.stack.db, shortId),
          shortId,
        };
      };
      android = (await app('Shop Android', 'android')).id;
      web = await app('Shop', 'web');
      await r.stack.call('POST', `/v1/applications/${web.shortId}/environments`, {
        name: 'Staging',
        url: 'http://127.0.0.1:9/shop',
      });
    },
  });
  const insertions = () => countRows(rig.stack.db, 'step_insertions');

  it("a mobile test's step editor offers no insertion and says why; its insert page and a post are refused, nothing written", async () => {
    const page = rig.dash.page;
    const id = await insertRecordedTestCase(rig.stack.db, {
      projectId: rig.stack.tenant.projectId,
      applicationId: android,
      name: 'Cart on Android',
      steps: loginSteps,
    });
    await page.goto(`${rig.dash.url}/test-cases/${id}/steps`);
    await page.getByRole('heading', { name: 'Steps of Cart on Android' }).waitFor();
    expect(await page.getByRole('link', { name: /^Insert a step/ }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Record and insert the step' }).count()).toBe(0);
    expect(await page.locator('#no-insert').textContent()).toBe(
      "A step cannot be inserted here: Shop Android is an android application: a step is recorded by the agent in a browser, so steps are inserted into web tests only; edit this test's steps instead.",
    );
    // The editor itself still works: the steps are there to edit and save.
    expect(await page.getByRole('button', { name: 'Save as version 2' }).count()).toBe(2);
    await expectAccessible(page);

    const form = await page.goto(`${rig.dash.url}/test-cases/${id}/steps/insert?at=1`);
    expect(form!.status()).toBe(409);
    expect(await page.getByRole('alert').textContent()).toMatch(
      /^A step cannot be inserted here: Shop Android is an android application/,
    );
    expect(await page.getByRole('button', { name: 'Record and insert the step' }).count()).toBe(0);
    await expectAccessible(page);

    // A post made anyway (an old tab, a script) is refused the same way.
    const csrf = await page.locator('input[name="_csrf"]').first().getAttribute('value');
    const posted = await page.request.post(`${rig.dash.url}/test-cases/${id}/steps/insert`, {
      form: { _csrf: csrf ?? '', at: '1', description: 'Check the cart' },
    });
    expect(posted.status()).toBe(409);
    expect(await posted.text()).toContain('Shop Android is an android application');
    expect(await insertions()).toBe(0);
  }, 60_000);

  it('without JavaScript: a form opened while it could start, posted after the environment went away, shows why on the form', async () => {
    const id = await insertRecordedTestCase(rig.stack.db, {
      projectId: rig.stack.tenant.projectId,
      applicationId: web.id,
      name: 'Login',
      steps: loginSteps,
    });
    const context = await rig.dash.browser.newContext({
      javaScriptEnabled: false,
      storageState: await rig.dash.context.storageState(),
    });
    const page = await context.newPage();
    await page.goto(`${rig.dash.url}/test-cases/${id}/steps`);
    expect(await page.getByRole('link', { name: /^Insert a step/ }).count()).toBe(loginSteps.length + 1);
    await page.getByRole('link', { name: 'Insert a step after step 2' }).click();
    await page.getByLabel('The step, in words').fill('Check the welcome text');
    await rig.stack.db
      .updateTable('applications')
      .set({ default_environment_id: null })
      .where('id', '=', web.id)
      .execute();
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Record and insert the step' }).click(),
    ]);
    expect(answer.status()).toBe(409);
    expect(await page.getByRole('alert').textContent()).toMatch(
      /^A step cannot be inserted here: application Shop has no environment with a URL to replay the steps against/,
    );
    expect(await insertions()).toBe(0);

    // And the editor now says so instead of offering the links.
    await page.goto(`${rig.dash.url}/test-cases/${id}/steps`);
    expect(await page.getByRole('link', { name: /^Insert a step/ }).count()).toBe(0);
    expect(await page.locator('#no-insert').textContent()).toMatch(/no environment with a URL/);
    await context.close();
  }, 60_000);
});
