import { Hono } from 'hono';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, openDashboard, reserveAppUrl, type DashboardBrowser } from '../support/dashboard.js';
import { serveOverHttp, type ServedApp } from '../support/http-server.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { startFakeGitLab, type FakeGitLab } from '../support/fake-gitlab.js';
import { connectGitProviders, type Providers } from '../support/merge-request-stack.js';
import { waitFor } from '../support/net.js';
import { gitlabDeploymentEvent, gitlabMergeRequestEvent, poster, type GitLabMr } from '../support/webhook-payloads.js';
import { approvingReview, changeReviewAction } from '../support/review-script.js';
import { startScriptedLlm, type ScriptedLlm } from '../support/scripted-llm.js';
import { burnInOrderPage, orderChecks, runningClock } from '../support/order-page.js';
import { startStack, type Stack } from '../support/worker-context.js';

// Visual changes in change reviews (issue 37, item 4) on the real stack: Temporal, Postgres, Chromium, fs blobs, the
// scripted model (which approves whatever happened: the code decides). The order page's test checks its heading,
// how the page looks, then its total. A preview whose stylesheet broke (same DOM, same texts) is a visual change
// with its diff image, not a failed test, and changes are requested; one that also lost its total is a failed test
// as well (the replay went on past the visual difference to find it); a pull request on GitHub and a merge request
// on GitLab (the local doubles) get the same section in their verdict; accepting the proposed baseline makes the
// next review approve; a preview with no change approves.

const goodCss = `body { font-family: 'DejaVu Sans', sans-serif; margin: 24px; color: #222; }
.card { border: 1px solid #888; border-radius: 8px; padding: 16px; width: 320px; }
button { background: #09c; color: white; border: 0; padding: 8px 14px; border-radius: 4px; }`;
const brokenCss = goodCss.replace('width: 320px', 'width: 120px').replace('background: #09c', 'background: none');

const orderPage = (total: string) => `<!doctype html><html lang="en"><head><title>Order</title>
<link rel="stylesheet" href="/style.css"></head><body><main>
<h1>Order summary</h1>
<div class="card"><p>2 × Coffee beans</p><p>${total}</p><button>Place order</button></div>
${runningClock}
</main></body></html>`;

interface Preview {
  css: string;
  total: string;
}

describe('visual changes in a change review', () => {
  let llm: ScriptedLlm;
  let stack: Stack;
  let site: ServedApp;
  let dash: DashboardBrowser;
  let gh: FakeGitHub;
  let gl: FakeGitLab;
  let providers: Providers;
  let appShortId: string;
  let testCaseId: string;
  let preview: Preview = { css: goodCss, total: 'Total: 24.00 EUR' };

  beforeAll(async () => {
    const appUrl = await reserveAppUrl();
    // `/order` is the environment the test was burned in on; `/preview/order` the change's preview deployment.
    const app = new Hono()
      .get('/order', (c) => c.html(orderPage('Total: 24.00 EUR')))
      .get('/preview/order', (c) => c.html(orderPage(preview.total)))
      .get('/style.css', (c) =>
        c.body(c.req.header('referer')?.includes('/preview/') ? preview.css : goodCss, 200, {
          'content-type': 'text/css',
        }),
      );
    [llm, site, gh, gl] = await Promise.all([
      startScriptedLlm(),
      serveOverHttp(app),
      startFakeGitHub(),
      startFakeGitLab(),
    ]);
    stack = await startStack({ llm, appUrl });
    dash = await openDashboard(stack.app, appUrl);
    // The application the repository's `preview` deployments map to (its merge-request review settings).
    providers = await connectGitProviders(stack, gh, gl);
    appShortId = providers.appShortId;
    await stack.call('POST', `/v1/applications/${appShortId}/environments`, {
      name: 'Local',
      url: `${site.url}/order`,
    });
    // The heading, how the page looks, then the total: a replay goes on past a visual difference to the total.
    const { heading, total, looks, done } = orderChecks;
    const generated = await burnInOrderPage(stack, llm, appShortId, [heading, looks, total, done]);
    testCaseId = generated.id;
    expect(generated.steps.steps.map((s: { action: string }) => s.action)).toEqual([
      'assert_text',
      'assert_screenshot',
      'assert_text',
    ]);
    expect((await stack.call('PATCH', `/v1/test-cases/${testCaseId}`, { isEnabled: true })).status).toBe(200);
    await dash.signIn(stack.tenant.token);
  }, 180_000);
  afterAll(async () => {
    await dash?.close();
    await stack?.close();
    await Promise.all([llm?.stop(), site?.close(), gh?.close(), gl?.close()]);
  });

  /** The model of a review: it selects the order test and approves whatever happened. */
  const approvingModel = () => {
    llm.reset();
    const model = approvingReview(testCaseId, 'the order page');
    llm.enqueue(model, model);
  };

  /** A review of a restyle on the preview, through the API as QA.tech's action starts one. */
  const review = async (on: Preview) => {
    preview = on;
    approvingModel();
    const outcome = await changeReviewAction(stack, {
      mode: 'rawChanges',
      changes: {
        changeDescription: 'Restyle the order card',
        diff: 'diff --git a/src/style.css b/src/style.css\n--- a/src/style.css\n+++ b/src/style.css\n@@ -1 +1 @@\n-.card { width: 320px; }\n+.card { width: 120px; }\n',
      },
      applicationOverrides: [{ applicationShortId: appShortId, environment: { url: `${site.url}/preview/order` } }],
    });
    const data = (await stack.call('GET', `/v1/chat/${outcome.shortId}/review`)).body;
    return { outcome, data };
  };

  /** An image behind a presigned link: served without the API token, a PNG. */
  const image = async (url: string) => {
    const { pathname, search } = new URL(url);
    const res = await stack.app.request(`${pathname}${search}`);
    expect(res.status).toBe(200);
    return PNG.sync.read(Buffer.from(await res.arrayBuffer()));
  };

  it('a preview with no change: Approved, no visual change', async () => {
    const { outcome, data } = await review({ css: goodCss, total: 'Total: 24.00 EUR' });
    expect(outcome.verdict).toBe('Approved');
    expect(data.tests).toMatchObject([{ name: 'Order page', result: 'PASSED' }]);
    expect(data.tests[0].visualChanges).toBeUndefined();
    expect(data.visualChanges).toEqual([]);
    expect(outcome.text).not.toContain('### Visual changes');
  }, 180_000);

  it('a preview whose stylesheet broke: a visual change with its diff image, not a failed test; changes are requested', async () => {
    const { outcome, data } = await review({ css: brokenCss, total: 'Total: 24.00 EUR' });
    expect(outcome.verdict).toBe('Changes Requested');
    expect(outcome.text).toContain('a visual change needs a person to look at it');
    const [test] = data.tests;
    expect(test).toMatchObject({ name: 'Order page', result: 'VISUAL_CHANGE' });
    expect(test.result).not.toBe('FAILED');
    expect(test.visualChanges).toHaveLength(1);
    const [change] = test.visualChanges;
    expect(change).toMatchObject({ stepIndex: 1, step: 'The order page looks right', target: 'the page' });
    expect(change.ratio).toBeGreaterThan(0);
    expect(change.ratio).toBeLessThanOrEqual(1);
    expect(data.visualChanges).toEqual([{ testCaseId, testName: 'Order page', ...change }]);
    // The three images, reachable from the API answer; the diff marks the difference in red.
    const diff = await image(change.diffUrl);
    let red = 0;
    for (let i = 0; i < diff.data.length; i += 4)
      if (diff.data[i] === 255 && diff.data[i + 1] === 0 && diff.data[i + 2] === 0) red++;
    expect(red).toBeGreaterThan(100);
    const [actual, baseline] = [await image(change.actualUrl), await image(change.baselineUrl)];
    expect([actual.width, baseline.width]).toEqual([diff.width, diff.width]);

    // The reply (also the merge request's note): its own section with the diff link, the table says VISUAL_CHANGE.
    expect(outcome.text).toMatch(/\| Order page \| existing \| VISUAL_CHANGE: /);
    expect(outcome.text).not.toMatch(/\| Order page \| existing \| FAILED/);
    expect(outcome.text).toContain('### Visual changes');
    expect(outcome.text).toContain(`- "Order page", step 2 "The order page looks right": the page looks different, `);
    expect(outcome.text).toContain(`[diff](${change.pages.diff})`);
    expect(change.pages.diff).toMatch(
      new RegExp(`^${dash.url}/runs/${data.runShortId}/tests/[0-9a-f-]+/visual/1/diff\\.png$`),
    );

    // The conversation's page: the section with a thumbnail of the diff, linked; axe-clean.
    const { page } = dash;
    await page.goto(`${dash.url}/chats/${outcome.shortId}`);
    const section = page.getByRole('region', { name: 'Visual changes' });
    const thumb = section.getByRole('img', { name: /Diff of step 2 of Order page/ });
    await expect
      .poll(() => thumb.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
      .toBe(diff.width);
    await expect
      .poll(() => section.getByRole('link', { name: 'diff image of step 2' }).getAttribute('href'))
      .toBe(change.pages.diff);
    await expectAccessible(page);

    // The run page: the failed visual step links its diff image.
    await page.goto(`${dash.url}/runs/${data.runShortId}`);
    const link = page.getByRole('link', { name: 'diff image of step 2' });
    expect(await link.getAttribute('href')).toMatch(/\/visual\/1\/diff\.png$/);
    const served = await page.request.get(await link.evaluate((a: HTMLAnchorElement) => a.href));
    expect(served.status()).toBe(200);
    expect(served.headers()['content-type']).toBe('image/png');
    await expectAccessible(page);
  }, 240_000);

  it('a preview that also lost its total: the failed test is reported, with its visual change beside it', async () => {
    const { outcome, data } = await review({ css: brokenCss, total: 'Total: 42.00 EUR' });
    expect(outcome.verdict).toBe('Changes Requested');
    const [test] = data.tests;
    expect(test).toMatchObject({ result: 'FAILED', visualChanges: [{ stepIndex: 1 }] });
    expect(test.detail).toContain('The total is shown');
    expect(outcome.text).toMatch(/\| Order page \| existing \| FAILED: /);
    expect(outcome.text).toContain('### Visual changes');
  }, 180_000);

  it('a pull request whose preview deployment is restyled: the review on GitHub requests changes and lists the visual change with its diff link', async () => {
    preview = { css: brokenCss, total: 'Total: 24.00 EUR' };
    approvingModel();
    const n = 7;
    const sha = 'c'.repeat(40);
    providers.github.openPullRequest(n, sha);
    expect((await providers.github.deliverPullRequest(poster(stack.app), 'opened', n, sha)).status).toBe(202);
    const url = `${site.url}/preview/order`;
    expect((await providers.github.deliverDeploymentStatus(poster(stack.app), sha, 'preview', url)).status).toBe(202);
    await waitFor(async () => gh.reviews(providers.github.repo, n).length === 1, 120_000, 'the review on GitHub');
    const [posted] = gh.reviews(providers.github.repo, n);
    expect(posted).toMatchObject({ event: 'REQUEST_CHANGES', commitId: sha });
    expect(posted!.body).toMatch(/\| Order page \| existing \| VISUAL_CHANGE: /);
    expect(posted!.body).not.toMatch(/\| Order page \| existing \| FAILED/);
    const section = posted!.body.slice(posted!.body.indexOf('### Visual changes'));
    expect(section).toMatch(
      new RegExp(
        `^### Visual changes\\n\\n- "Order page", step 2 "The order page looks right": the page looks different, [\\d.]+% of its pixels differ \\(\\[diff\\]\\(${dash.url}/runs/run[^/]*/tests/[0-9a-f-]+/visual/1/diff\\.png\\) · \\[new image\\]`,
      ),
    );
    // The diff link opens the image for a person signed in to the project.
    const diffLink = /\[diff\]\(([^)]+)\)/.exec(section)![1]!;
    const served = await dash.page.request.get(diffLink);
    expect(served.status()).toBe(200);
    expect(served.headers()['content-type']).toBe('image/png');
  }, 240_000);

  it('a GitLab merge request on the restyled preview: the verdict note lists the visual change with its diff link', async () => {
    preview = { css: brokenCss, total: 'Total: 24.00 EUR' };
    approvingModel();
    const mr: GitLabMr = { project: providers.gitlab.repo, iid: 9, sha: 'd'.repeat(40), web: gl.url };
    providers.gitlab.openMergeRequest(mr);
    const post = poster(stack.app);
    await providers.gitlab.deliver(
      post,
      'Deployment Hook',
      gitlabDeploymentEvent(mr, 'preview', `${site.url}/preview/order`),
    );
    expect(
      (await providers.gitlab.deliver(post, 'Merge Request Hook', gitlabMergeRequestEvent(mr, 'open'))).status,
    ).toBe(202);
    const verdictNote = () => gl.notes(mr.project, mr.iid).find((n) => n.body.includes('**Verdict:'));
    await waitFor(async () => verdictNote() !== undefined, 120_000, 'the verdict note on GitLab');
    const body = verdictNote()!.body;
    expect(body).toContain('**Verdict: Changes Requested**');
    expect(body).toMatch(/\| Order page \| existing \| VISUAL_CHANGE: /);
    expect(body).toMatch(
      /### Visual changes\n\n- "Order page", step 2 "The order page looks right": the page looks different, [\d.]+% of its pixels differ \(\[diff\]\([^)]+\/visual\/1\/diff\.png\)/,
    );
  }, 240_000);

  it("accepting the review's proposed baseline: the next review of the restyled preview approves", async () => {
    const proposals = (await stack.call('GET', `/v1/test-cases/${testCaseId}/steps/proposals`)).body.proposals;
    const pending = proposals.filter((p: { status: string }) => p.status === 'PENDING');
    expect(pending).toHaveLength(1);
    expect(pending[0].healed).toMatchObject([{ index: 1, via: 'baseline' }]);
    const accepted = await stack.call('POST', `/v1/test-cases/${testCaseId}/steps/${pending[0].version}/accept`);
    expect(accepted.status).toBe(200);

    const { outcome, data } = await review({ css: brokenCss, total: 'Total: 24.00 EUR' });
    expect(data.tests).toMatchObject([{ result: 'PASSED' }]);
    expect(outcome.verdict).toBe('Approved');
  }, 180_000);
});
