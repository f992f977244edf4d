import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pollChat } from '../support/chat-polling.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';
import { startFakeGitLab, type FakeGitLab } from '../support/fake-gitlab.js';
import { startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';
import { checkoutSteps, insertRecordedTestCase, loginSteps, applicationIdOf } from '../support/recorded.js';
import { changeReviewAction, reviewResponder } from '../support/review-script.js';
import { startScriptedLlm, type ScriptedLlm } from '../support/scripted-llm.js';
import { startStack, type Stack } from '../support/worker-context.js';
import { countRows } from '../support/row-counts.js';

// Change reviews on the real stack (Postgres, Temporal, Chromium, the fixture shop as the preview deployment, the
// scripted model), driven the way QA.tech's change-review action drives them; in PR mode the real GitHub and GitLab
// clients fetch the change from the local fake providers.

const checkoutDiff = `diff --git a/src/checkout/Checkout.tsx b/src/checkout/Checkout.tsx
index 3f1c2aa..9b0d7e1 100644
--- a/src/checkout/Checkout.tsx
+++ b/src/checkout/Checkout.tsx
@@ -41,7 +41,9 @@ export function Checkout() {
   async function placeOrder(event: FormEvent) {
     event.preventDefault();
-    await api.post('/orders', { name, address, shipping });
+    const order = await api.post('/orders', { name, address, shipping, express: shipping === 'express' });
+    track('order_placed', { id: order.id });
     navigate('/confirmation');
   }
`;

const docsDiff = `diff --git a/README.md b/README.md
index 1111111..2222222 100644
--- a/README.md
+++ b/README.md
@@ -1,2 +1,2 @@
 # Shop
-Run npm start.
+Run \`npm run dev\` to start the shop.
`;

/** `RECORD_HISTORIES=1` refreshes the history that test/workflows/replay.test.ts replays. */
async function recordHistory(stack: Stack, workflowId: string, file: string): Promise<void> {
  const history = await (await stack.temporal.get()).workflow.getHandle(workflowId).fetchHistory();
  writeFileSync(join('test/workflows/histories', file), historyToJSON(history));
}

describe('change review on the real stack', () => {
  let preview: FixtureApps;
  let brokenPreview: FixtureApps;
  let llm: ScriptedLlm;
  let github: FakeGitHub;
  let gitlab: FakeGitLab;
  let stack: Stack;
  let appShortId: string;
  let loginId: string;
  let checkoutId: string;

  beforeAll(async () => {
    [preview, brokenPreview, llm, github, gitlab] = await Promise.all([
      startFixtureApps(),
      startFixtureApps(),
      startScriptedLlm(),
      startFakeGitHub(),
      startFakeGitLab(),
    ]);
    brokenPreview.setVariant('checkoutBroken');
    stack = await startStack({ llm });
    appShortId = (await stack.call('POST', '/v1/applications', { name: 'Shop' })).body.shortId;
    await stack.call('POST', `/v1/applications/${appShortId}/environments`, {
      name: 'Production',
      url: 'https://shop.invalid/shop/login',
    });
    const appId = await applicationIdOf(stack.db, appShortId);
    const project = { projectId: stack.tenant.projectId, applicationId: appId };
    loginId = await insertRecordedTestCase(stack.db, {
      ...project,
      name: 'Sign in and add the mug',
      steps: loginSteps,
    });
    checkoutId = await insertRecordedTestCase(stack.db, {
      ...project,
      name: 'Checkout',
      steps: checkoutSteps,
      resumeFrom: loginId,
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await Promise.all([preview?.stop(), brokenPreview?.stop(), llm?.stop(), github?.close(), gitlab?.close()]);
  });
  beforeEach(() => llm.reset());

  const onPreview = (fixture: FixtureApps) => [
    { applicationShortId: appShortId, environment: { url: `${fixture.url}/shop/login` } },
  ];
  const review = (fixture: FixtureApps, diff = checkoutDiff) => ({
    mode: 'rawChanges',
    changes: { changeDescription: 'Send express shipping with the order', diff },
    applicationOverrides: onPreview(fixture),
    actor: 'octocat',
    branch: 'feature/express',
    commitHash: 'abc123',
  });
  /** The model: picks the checkout test when the diff touches checkout, and approves whatever the results (code decides). */
  const checkoutModel = () =>
    reviewResponder({
      select: (prompt) => {
        expect(prompt).toContain("+    track('order_placed', { id: order.id });");
        expect(prompt).toContain(`- ${checkoutId} | Checkout | Shop (${appShortId})`);
        return {
          existingTestCaseIds: prompt.includes('src/checkout/') ? [checkoutId, 'not-a-catalogue-id'] : [],
          newTests: [],
          reasoning: 'The diff changes how checkout places orders.',
        };
      },
      verdict: () => ({
        verdict: 'Approved',
        summary: 'Checkout was exercised on the preview.',
        evaluationDetails: 'Checkout ran end to end.',
      }),
    });
  const runCount = () => countRows(stack.db, 'runs');

  it('a checkout diff selects the checkout test; on a passing preview: Approved, with progress shown on the way and the verdict as data', async () => {
    llm.enqueue(checkoutModel(), checkoutModel());
    const outcome = await changeReviewAction(stack, review(preview), { intervalMs: 100 });

    expect(outcome.verdict).toBe('Approved');
    // The reply stayed PARTIAL with growing progress text until the verdict.
    const progress = outcome.seen.filter((s) => s.status === 'PARTIAL');
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every((s) => s.isStreaming)).toBe(true);
    expect(progress.at(-1)!.text).toContain('Selected 1 existing test: "Checkout". Running 1 test on the preview…');
    expect(outcome.text).toContain('Checkout was exercised on the preview.');
    expect(outcome.text).toMatch(
      /\| Checkout \| existing \| PASSED \| \[open\]\(https:\/\/app\.proctor\.test\/runs\/run_\w+\) \|/,
    );

    const data = (await stack.call('GET', `/v1/chat/${outcome.shortId}/review`)).body;
    expect(data).toMatchObject({
      state: 'COMPLETED',
      verdict: 'Approved',
      summary: 'Checkout was exercised on the preview.',
      metadata: { actor: 'octocat', branch: 'feature/express', commitHash: 'abc123' },
    });
    expect(data.tests.map((t: any) => [t.name, t.origin, t.result]).sort()).toEqual([
      ['Checkout', 'existing', 'PASSED'],
      ['Sign in and add the mug', 'existing', 'PASSED'],
    ]);
    // One run, on the preview the request named (not the application's own environment), with the commit it carried.
    const run = (await stack.call('GET', `/v1/run/${data.runShortId}?testCases=all`)).body;
    expect(run).toMatchObject({ status: 'COMPLETED', result: 'PASSED', trigger: 'CHANGE_REVIEW' });
    expect(
      await stack.db
        .selectFrom('runs')
        .select(['branch', 'commit_hash'])
        .where('short_id', '=', data.runShortId)
        .executeTakeFirstOrThrow(),
    ).toEqual({ branch: 'feature/express', commit_hash: 'abc123' });
    expect(run.runTestCases.map((t: any) => t.environmentUrl)).toEqual([
      `${preview.url}/shop/login`,
      `${preview.url}/shop/login`,
    ]);
    expect((await stack.call('GET', `/v1/chat/${outcome.shortId}`)).body.title).toBe(
      'Review: Send express shipping with the order',
    );

    if (process.env.RECORD_HISTORIES) await recordHistory(stack, `chat:${outcome.shortId}`, 'changeReview.json');
  }, 240_000);

  it('on a preview where checkout is broken: Changes Requested naming the failing step, although the model said Approved', async () => {
    llm.enqueue(checkoutModel(), checkoutModel());
    const outcome = await changeReviewAction(stack, review(brokenPreview));

    expect(outcome.verdict).toBe('Changes Requested');
    expect(outcome.text).toContain('_The model proposed "Approved"; a failed test means changes are requested._');
    expect(outcome.text).toMatch(
      /\| Checkout \| existing \| FAILED: "Confirmed" — step 7 \(assert_visible\): .*Could not place the order/,
    );
    const data = (await stack.call('GET', `/v1/chat/${outcome.shortId}/review`)).body;
    expect(data).toMatchObject({ state: 'COMPLETED', verdict: 'Changes Requested' });
    expect(data.tests.find((t: any) => t.name === 'Checkout')).toMatchObject({
      result: 'FAILED',
      detail: expect.stringContaining('step 7 (assert_visible)'),
    });
    expect(brokenPreview.requests()).toContain('POST /shop/api/orders');
  }, 240_000);

  it('a docs-only diff runs nothing and says so, without asking the model', async () => {
    const runsBefore = await runCount();
    const outcome = await changeReviewAction(stack, review(preview, docsDiff));

    expect(outcome.verdict).toBe('Comment');
    expect(outcome.text).toContain(
      'Unable to verify this change in a browser: the change only touches documentation files. No tests were selected or run.',
    );
    expect(llm.requests).toEqual([]);
    expect(await runCount()).toBe(runsBefore);
    expect((await stack.call('GET', `/v1/chat/${outcome.shortId}/review`)).body).toMatchObject({
      state: 'COMPLETED',
      verdict: 'Comment',
      tests: [],
      runShortId: null,
    });
  }, 120_000);

  it('a follow-up sent while the review runs is answered after the verdict, in order; the conversation goes on after that', async () => {
    llm.enqueue(
      checkoutModel(),
      checkoutModel(),
      { content: 'I ran the checkout test on your preview.' },
      { content: 'Yes, it passed.' },
    );
    const { shortId } = (await stack.call('POST', '/v1/chat/change-review', review(preview))).body;
    expect((await stack.call('POST', `/v1/chat/${shortId}`, { message: 'What are you testing?' })).status).toBe(202);
    await pollChat(stack, shortId, { timeoutMs: 180_000 });

    const messages = (await stack.call('GET', `/v1/chat/${shortId}`)).body.messages.reverse();
    expect(messages.map((m: any) => [m.role, m.status])).toEqual([
      ['user', 'COMPLETED'],
      ['assistant', 'COMPLETED'],
      ['user', 'COMPLETED'],
      ['assistant', 'COMPLETED'],
    ]);
    expect(messages[1].text).toMatch(/^\*\*Verdict: Approved\*\*/);
    expect(messages[3].text).toBe('I ran the checkout test on your preview.');
    // The model answering the follow-up saw the review's request and its verdict.
    const followUpPrompt = llm.requests[2]!.messages.map((m) => m.content).join('\n');
    expect(followUpPrompt).toContain('Review these changes: Send express shipping with the order');
    expect(followUpPrompt).toContain('**Verdict: Approved**');
    // A review that answered a queued follow-up after its verdict: the richer history to replay.
    if (process.env.RECORD_HISTORIES) await recordHistory(stack, `chat:${shortId}`, 'changeReview-follow-up.json');

    // The review's workflow has ended; the next message starts the conversation's own workflow under the same id.
    await stack.call('POST', `/v1/chat/${shortId}`, { message: 'Did it pass?' });
    expect((await pollChat(stack, shortId)).final.messages[0]).toMatchObject({
      status: 'COMPLETED',
      text: 'Yes, it passed.',
    });
  }, 240_000);
  const checkoutPatch = checkoutDiff.slice(checkoutDiff.indexOf('@@'));

  it('PR mode without an integration for the provider: 404 saying so, nothing written', async () => {
    const before = await countRows(stack.db, 'change_reviews');
    const refused = await stack.call('POST', '/v1/chat/change-review', {
      mode: 'pr',
      prUrl: 'https://github.com/acme/other/pull/1',
      vcsProviderId: 'github',
      applicationOverrides: [],
    });
    expect(refused).toMatchObject({
      status: 404,
      body: { message: 'GitHub integration not found: connect one with POST /v1/git-integrations first' },
    });
    expect(await countRows(stack.db, 'change_reviews')).toBe(before);
  }, 60_000);

  it('PR mode, GitHub App: the pull request is fetched with an installation token, the review runs on it and completes', async () => {
    const app = github.addApp({ slug: 'proctor-review' });
    const installationId = github.addInstallation(app.appId, ['acme/shop']);
    const pull = github.addPullRequest('acme/shop', {
      number: 42,
      title: 'Express shipping at checkout',
      body: 'Sends the express flag with the order.',
      headRef: 'feature/express',
      files: [
        { filename: 'src/checkout/Checkout.tsx', additions: 2, deletions: 1, patch: checkoutPatch },
        { filename: 'public/express.png', status: 'added' },
      ],
    });
    expect(
      (
        await stack.call('POST', '/v1/git-integrations', {
          provider: 'github',
          auth: 'app',
          appId: app.appId,
          privateKey: app.privateKey,
          baseUrl: github.url,
        })
      ).status,
    ).toBe(201);
    llm.enqueue(checkoutModel(), checkoutModel());

    const outcome = await changeReviewAction(stack, {
      mode: 'pr',
      prUrl: 'https://github.com/acme/shop/pull/42',
      vcsProviderId: 'github',
      applicationOverrides: onPreview(preview),
    });
    expect(outcome.verdict).toBe('Approved');
    // The model saw the pull request's title and patch, and the binary file only by name.
    const selection = JSON.stringify(llm.requests[0]!.messages);
    expect(selection).toContain('Change: Express shipping at checkout');
    expect(selection).toContain('public/express.png [added, +0 -0, binary]');
    expect(github.tokenExchanges(installationId)).toBeGreaterThanOrEqual(1);
    const data = (await stack.call('GET', `/v1/chat/${outcome.shortId}/review`)).body;
    expect(data).toMatchObject({
      mode: 'pr',
      state: 'COMPLETED',
      verdict: 'Approved',
      change: { title: 'Express shipping at checkout', headSha: pull.headSha, fileCount: 2 },
    });
    expect(
      await stack.db
        .selectFrom('runs')
        .select('branch')
        .where('short_id', '=', data.runShortId)
        .executeTakeFirstOrThrow(),
    ).toEqual({ branch: 'feature/express' });
  }, 240_000);

  it('PR mode, GitLab: the merge request is fetched with the access token and the review completes', async () => {
    gitlab.addProject('acme/web/shop');
    gitlab.addToken('glpat-review', ['acme/web/shop']);
    gitlab.addMergeRequest('acme/web/shop', {
      iid: 7,
      title: 'Log the order id',
      description: 'Observability only.',
      files: [{ newPath: 'src/checkout/Checkout.tsx', diff: checkoutPatch }],
    });
    expect(
      (
        await stack.call('POST', '/v1/git-integrations', {
          provider: 'gitlab',
          token: 'glpat-review',
          baseUrl: gitlab.url,
        })
      ).status,
    ).toBe(201);
    llm.enqueue(
      reviewResponder({
        select: (prompt) => {
          expect(prompt).toContain('Change: Log the order id');
          expect(prompt).toContain("+    track('order_placed', { id: order.id });");
          return { existingTestCaseIds: [], newTests: [], reasoning: 'Only tracking changed; nothing a user sees.' };
        },
        verdict: () => ({}),
      }),
    );

    const outcome = await changeReviewAction(stack, {
      mode: 'pr',
      prUrl: 'https://gitlab.example/acme/web/shop/-/merge_requests/7',
      vcsProviderId: 'gitlab',
      applicationOverrides: [],
    });
    expect(outcome.verdict).toBe('Comment');
    expect(outcome.text).toContain('Only tracking changed; nothing a user sees.');
    expect((await stack.call('GET', `/v1/chat/${outcome.shortId}/review`)).body).toMatchObject({
      state: 'COMPLETED',
      change: { title: 'Log the order id', fileCount: 1 },
    });
    expect(gitlab.requests.map((r) => r.route)).toEqual(expect.arrayContaining(['mergeRequests.show']));
  }, 120_000);
});
