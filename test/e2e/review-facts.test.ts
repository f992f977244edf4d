import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refOf, tool, type AgentMove } from '../support/agent-script.js';
import { expectAccessible, openDashboard, reserveAppUrl, type DashboardBrowser } from '../support/dashboard.js';
import { serveOverHttp, type ServedApp } from '../support/http-server.js';
import { pollChat } from '../support/chat-polling.js';
import { approvingReview, changeReviewAction } from '../support/review-script.js';
import { startScriptedLlm, type ScriptedLlm } from '../support/scripted-llm.js';
import { startStack, waitForGeneration, type Stack } from '../support/worker-context.js';

// What a review reads beside PASSED/FAILED, on the real stack (Postgres, Temporal, Chromium, the scripted model):
// a burn-in whose agent says part of the goal was not verified keeps that on the test case (API, dashboard), and a
// change that takes a control's accessible name away is `Changes Requested` naming the lost name, although the
// test still passes and the model said `Approved`. The changes come from the real replay (run_test_cases.changes).

/** A page of invoices whose "Select all" checkbox is labelled, or (`unlabelled`) shows the same words unassociated. */
function invoicesPage(labelled: boolean): string {
  const label = labelled ? '<label for="all">Select all</label>' : '<span>Select all</span>';
  return `<!doctype html><html lang="en"><head><title>Invoices</title></head><body><main>
<h1>Invoices</h1>
<ul><li>Invoice 2026-001</li><li>Invoice 2026-002</li></ul>
${label} <input type="checkbox" id="all" data-testid="select-all">
<button type="button" id="delete">Delete selected</button>
<p role="status" id="status"></p>
<script>
document.getElementById('delete').addEventListener('click', () => {
  document.getElementById('status').textContent = document.getElementById('all').checked ? '2 invoices deleted' : 'Nothing selected';
});
</script>
</main></body></html>`;
}

const goal = 'Select all invoices and delete them';
const reservation = 'the invoices stay deleted after a reload';
const moves: AgentMove[] = [
  (r) => tool('check', { ref: refOf(r, 'checkbox "Select all"'), checked: true, description: 'Select all invoices' }),
  (r) => tool('click', { ref: refOf(r, 'button "Delete selected"'), description: 'Delete the selected invoices' }),
  () => tool('assert_text', { text: '2 invoices deleted', description: 'Both invoices are deleted' }),
  () => tool('done', { summary: 'Deleted both invoices', notCovered: [reservation, ' ', 42] }),
];

describe('a review reads the facts beside the results', () => {
  let llm: ScriptedLlm;
  let stack: Stack;
  let preview: ServedApp;
  let dash: DashboardBrowser;
  let labelled = true;
  let appShortId: string;
  let testCaseId: string;

  beforeAll(async () => {
    const appUrl = await reserveAppUrl();
    const site = new Hono().get('/invoices', (c) => c.html(invoicesPage(labelled)));
    [llm, preview] = await Promise.all([startScriptedLlm(), serveOverHttp(site)]);
    stack = await startStack({ llm, appUrl });
    dash = await openDashboard(stack.app, appUrl);
    appShortId = (await stack.call('POST', '/v1/applications', { name: 'Billing' })).body.shortId;
    await stack.call('POST', `/v1/applications/${appShortId}/environments`, {
      name: 'Local',
      url: `${preview.url}/invoices`,
    });
    await dash.signIn(stack.tenant.token);
  }, 120_000);
  afterAll(async () => {
    await dash?.close();
    await stack?.close();
    await Promise.all([llm?.stop(), preview?.close()]);
  });

  it('a burn-in that says part of the goal was not verified: the test case keeps it, in the API and on its page', async () => {
    llm.enqueue(...moves);
    const created = await stack.call('POST', '/v1/test-cases', {
      name: 'Delete all invoices',
      goal,
      applicationShortId: appShortId,
    });
    expect(created.status).toBe(200);
    testCaseId = created.body.testCase.id;
    const generated = await waitForGeneration(stack, testCaseId);
    expect(generated.generationStatus).toBe('COMPLETED');
    // Only short strings are kept; the blank one and the number the model sent are dropped.
    expect(generated.notCovered).toEqual([reservation]);
    // The agent was offered the argument and told what it is for.
    const offered = llm.requests[0]!.tools!.find((t) => t.type === 'function' && t.function.name === 'done');
    expect(JSON.stringify(offered)).toContain('notCovered');
    expect(JSON.stringify(llm.requests[0]!.messages)).toContain(
      'notCovered lists each part of the goal you could not verify',
    );
    // The check was recorded as in the issue: the test id leads, the role and name are its recorded target.
    expect(generated.steps.steps[0]).toMatchObject({
      action: 'check',
      locator: "getByTestId('select-all')",
      target: { role: 'checkbox', name: 'Select all' },
    });

    const { page } = dash;
    await page.goto(`${dash.url}/test-cases/${testCaseId}`);
    await expect
      .poll(() => page.locator('#not-covered').getByRole('listitem').allTextContents())
      .toEqual([reservation]);
    await expectAccessible(page);

    expect((await stack.call('PATCH', `/v1/test-cases/${testCaseId}`, { isEnabled: true })).status).toBe(200);
  }, 120_000);

  it("the chat creates such a test: the create tool's reply tells the model what the burn-in did not cover", async () => {
    labelled = true;
    llm.reset();
    let toolReply = '';
    llm.enqueue(
      () => ({
        toolCalls: [
          {
            name: 'create_test_case',
            arguments: { applicationShortId: appShortId, name: 'Delete all invoices, from the chat', goal },
          },
        ],
      }),
      ...moves,
      (req) => {
        const tool = [...req.messages].reverse().find((m) => m.role === 'tool');
        toolReply = typeof tool?.content === 'string' ? tool.content : '';
        return { content: 'Created; it does not check that the invoices stay deleted.' };
      },
    );
    const created = await stack.call('POST', '/v1/chat', { message: 'Create a test that deletes all invoices.' });
    expect(created.status).toBe(202);
    expect((await pollChat(stack, created.body.shortId, { timeoutMs: 120_000 })).final.messages[0]).toMatchObject({
      status: 'COMPLETED',
    });
    expect(toolReply).toMatch(
      /burn-in COMPLETED with 3 recorded steps\. Not covered \(the agent could not verify, so a pass does not prove it\): the invoices stay deleted after a reload\./,
    );
  }, 180_000);

  const review = () => ({
    mode: 'rawChanges',
    changes: {
      changeDescription: 'Restyle the invoice list',
      diff: 'diff --git a/src/Invoices.tsx b/src/Invoices.tsx\n--- a/src/Invoices.tsx\n+++ b/src/Invoices.tsx\n@@ -1 +1 @@\n-<label for="all">Select all</label>\n+<span>Select all</span>\n',
    },
    applicationOverrides: [{ applicationShortId: appShortId, environment: { url: `${preview.url}/invoices` } }],
  });
  /** A model that selects the invoice test and approves whatever happened: the code decides. */
  const approvingModel = () => approvingReview(testCaseId, 'the invoice list');

  it('the checkbox keeps its name: Approved, and the review says what the test does not cover', async () => {
    labelled = true;
    llm.reset();
    llm.enqueue(approvingModel(), approvingModel());
    const outcome = await changeReviewAction(stack, review());

    expect(outcome.verdict).toBe('Approved');
    expect(outcome.text).toContain(
      `Not covered by "Delete all invoices" (its burn-in could not verify it): ${reservation}.`,
    );
    expect(outcome.text).toMatch(
      new RegExp(`\\| Delete all invoices \\| existing \\| PASSED: not covered: ${reservation} \\|`),
    );
    // The verdict model was told too.
    expect(JSON.stringify(llm.requests.at(-1)!.messages)).toContain(
      `not covered (its burn-in could not verify): ${reservation}`,
    );
  }, 180_000);

  it('the change takes the checkbox its name: the test still passes, the replay reports a regression, and the review is Changes Requested naming it', async () => {
    labelled = false;
    llm.reset();
    llm.enqueue(approvingModel(), approvingModel());
    const outcome = await changeReviewAction(stack, review());

    expect(outcome.verdict).toBe('Changes Requested');
    expect(outcome.text).toContain('_The model proposed "Approved"; a regression means changes are requested._');
    const data = (await stack.call('GET', `/v1/chat/${outcome.shortId}/review`)).body;
    const [test] = data.tests;
    expect(test).toMatchObject({ name: 'Delete all invoices', result: 'PASSED', notCovered: [reservation] });
    const regression = test.changes.find((c: { severity: string }) => c.severity === 'regression');
    expect(regression).toMatchObject({ stepIndex: 0, field: 'name', from: 'Select all' });
    expect(regression.summary).toMatch(/"Select all" lost its accessible name/);
    // In plain words in the summary (the model's own said nothing of it) and in the results table.
    expect(data.summary).toContain(`Regression in "Delete all invoices": ${regression.summary}.`);
    expect(outcome.text).toContain(`| Delete all invoices | existing | PASSED: regression: ${regression.summary}`);
    // Read from the run's own row, where the replay wrote it: PASSED, with the change.
    const row = await stack.db
      .selectFrom('run_test_cases as rtc')
      .innerJoin('runs as r', 'r.id', 'rtc.run_id')
      .select(['rtc.result', 'rtc.changes'])
      .where('r.short_id', '=', data.runShortId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ result: 'PASSED', changes: test.changes });
    // The review on its conversation's page says it too.
    const { page } = dash;
    await page.goto(`${dash.url}/chats/${outcome.shortId}`);
    const shown = page
      .getByRole('table', { name: 'Tests of this review' })
      .getByRole('row', { name: /Delete all invoices/ });
    await expect
      .poll(() => shown.textContent())
      .toContain(`regression: ${regression.summary}; not covered: ${reservation}`);
    await expectAccessible(page);
  }, 180_000);
});
