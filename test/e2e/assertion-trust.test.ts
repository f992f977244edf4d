import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refOf, tool, type AgentMove } from '../support/agent-script.js';
import { serveOverHttp, type ServedApp } from '../support/http-server.js';
import { startScriptedLlm, type ScriptedLlm } from '../support/scripted-llm.js';
import { startStack, waitForGeneration, type Stack } from '../support/worker-context.js';

// A healed assertion that once passed on an error, and a changed text that once had no way forward, on the real stack (Temporal worker, Postgres, Chromium, the scripted
// model over HTTP). A group admin page (as Django's) confirms a new group with a list item that has no accessible
// name; on a rerun the group exists and the same list shows an error. A lying heal picking the error must not pass.
// And when the page's copy really changed (a new locale), the run fails and offers the new text to accept.

type Build = 'original' | 'duplicate' | 'de';

function groupsPage(build: Build): string {
  const de = build === 'de';
  const heading = de ? 'Website-Verwaltung' : 'Site administration';
  const message =
    build === 'duplicate'
      ? 'Group with this Name already exists.'
      : de
        ? 'Die Gruppe „QA Team“ wurde erfolgreich hinzugefügt.'
        : 'The group “QA Team” was added successfully.';
  return `<!doctype html><html lang="${de ? 'de' : 'en'}"><head><title>Groups</title></head><body><main>
<h1 id="site-name">${heading}</h1>
<form id="add"><label for="name">${de ? 'Name' : 'Name'}</label><input id="name" name="name"> <button type="submit" id="save">${de ? 'Sichern' : 'Save'}</button></form>
<ul class="messagelist" id="messages"></ul>
<ul><li>Editors</li><li>Reviewers</li></ul>
<script>
document.getElementById('add').addEventListener('submit', (e) => {
  e.preventDefault();
  const li = document.createElement('li');
  li.className = ${JSON.stringify(build === 'duplicate' ? 'error' : 'success')};
  li.textContent = ${JSON.stringify(message)} + ' ';
  const dismiss = document.createElement('button');
  dismiss.type = 'button';
  dismiss.textContent = 'Dismiss';
  li.append(dismiss);
  document.getElementById('messages').append(li);
});
</script>
</main></body></html>`;
}

const goal = 'Add the group QA Team and see it confirmed';
const moves: AgentMove[] = [
  (r) =>
    tool('assert_visible', { ref: refOf(r, 'heading "Site administration"'), description: 'The admin site is open' }),
  (r) => tool('fill', { ref: refOf(r, 'textbox "Name"'), value: 'QA Team', description: 'Name the group' }),
  (r) => tool('click', { ref: refOf(r, 'button "Save"'), description: 'Save the group' }),
  // The list item's own line in the snapshot is `- listitem [ref=…]:`; its text is on the child line below.
  (r) => tool('assert_visible', { ref: refOf(r, /listitem \[ref=[^\]]+\]:$/), description: 'The group is confirmed' }),
  () => tool('done', { summary: 'The group was added and confirmed' }),
];

describe('an assertion never passes on other text', () => {
  let llm: ScriptedLlm;
  let stack: Stack;
  let site: ServedApp;
  let build: Build = 'original';
  let testCaseId: string;

  beforeAll(async () => {
    [llm, site] = await Promise.all([
      startScriptedLlm(),
      serveOverHttp(new Hono().get('/admin/groups', (c) => c.html(groupsPage(build)))),
    ]);
    stack = await startStack({ llm });
    const app = (await stack.call('POST', '/v1/applications', { name: 'Admin' })).body.shortId;
    await stack.call('POST', `/v1/applications/${app}/environments`, {
      name: 'Local',
      url: `${site.url}/admin/groups`,
    });
    llm.enqueue(...moves);
    const created = await stack.call('POST', '/v1/test-cases', { name: 'Add a group', goal, applicationShortId: app });
    testCaseId = created.body.testCase.id;
    const generated = await waitForGeneration(stack, testCaseId);
    expect(generated.failureReason).toBeNull();
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await Promise.all([llm?.stop(), site?.close()]);
  });

  const run = async (on: Build, heal: boolean) => {
    build = on;
    const before = llm.requests.length;
    const result = await stack.activities.executeTest({
      projectId: stack.tenant.projectId,
      testCaseId,
      artifactPrefix: `runs/${randomUUID()}/t`,
      heal,
    });
    return { ...result, llmRequests: llm.requests.length - before };
  };
  const steps = async () => (await stack.call('GET', `/v1/test-cases/${testCaseId}`)).body.steps;

  it('records the confirmation by its whole text, although the list item has no name of its own', async () => {
    const recorded = (await steps()).steps;
    expect(recorded[3]).toMatchObject({
      action: 'assert_visible',
      locator: "getByText('The group “QA Team” was added successfully.')",
      target: { role: 'listitem', text: 'The group “QA Team” was added successfully. Dismiss' },
    });
    const clean = await run('original', false);
    expect(clean).toMatchObject({ status: 'PASSED', changes: [], healed: [] });
  }, 60_000);

  it('fails when a lying heal picks the error in the same list, and says what the page showed', async () => {
    // The model, asked to re-find the confirmation, picks the error list item: same role, other text.
    llm.enqueue((r) =>
      tool('select_element', {
        ref: refOf(r, /listitem \[ref=[^\]]+\]:$/),
        reason: 'The message under the form, same list item',
      }),
    );
    const result = await run('duplicate', true);
    expect(result.llmRequests).toBe(1);
    expect(result.status).toBe('FAILED');
    expect(result.failedStepIndex).toBe(3);
    expect(result.failureKind).toBe('changed-ui');
    expect(result.error).toContain("refused the model's pick");
    expect(result.error).toContain('does not show "The group “QA Team” was added successfully."');
    expect(result.error).toContain('the page showed: "');
    expect(result.error).toContain('Group with this Name already exists.');
    expect(result.evidence).toMatchObject({ url: `${site.url}/admin/groups`, httpStatus: 200 });
    expect(result.evidence?.pageExcerpt).toContain('Group with this Name already exists.');
    expect(result.healed).toEqual([]);
  }, 60_000);

  it('without a model the error fails the step too: no route to the element skips the comparison', async () => {
    const result = await run('duplicate', false);
    expect(result).toMatchObject({
      status: 'FAILED',
      failedStepIndex: 3,
      failureKind: 'element-missing',
      llmRequests: 0,
    });
  }, 60_000);

  it('a legitimate new copy fails and is offered to a person; accepting it makes the next run pass', async () => {
    // The German build: the heading's id fallback finds a heading with other text, and the honest model re-finds
    // it under its German text, which the code refuses and offers to a person instead.
    const base = await steps();
    llm.enqueue((r) =>
      tool('select_element', { ref: refOf(r, 'heading "Website-Verwaltung"'), reason: 'The site heading, in German' }),
    );
    const german = await run('de', true);
    expect(german.status).toBe('FAILED');
    expect(german.failedStepIndex).toBe(0);
    expect(german.error).toMatch(
      /^step 1 \(assert_visible\): locator\('#site-name'\) shows "Website-Verwaltung", not the expected "Site administration"/,
    );
    expect(german.failureKind).toBe('assertion');
    expect(german.keptHeal).toEqual({ kept: 'proposed', version: base.version + 1 });
    expect(german.error).toContain(`the new text is proposed as steps version ${base.version + 1}`);
    const [proposal] = (await stack.call('GET', `/v1/test-cases/${testCaseId}/steps/proposals`)).body.proposals;
    expect(proposal.healed).toEqual([
      {
        index: 0,
        from: "getByRole('heading', { name: 'Site administration' })",
        to: "getByRole('heading', { name: 'Website-Verwaltung' })",
        via: 'expectation',
        reason: 'the heading now reads "Website-Verwaltung"; accept to update this assertion',
      },
    ]);
    expect(await steps()).toEqual(base);
    expect((await stack.call('POST', `/v1/test-cases/${testCaseId}/steps/${base.version + 1}/accept`)).status).toBe(
      200,
    );

    // The heading passes in German now; the confirmation is the next thing the German build changed.
    llm.enqueue((r) =>
      tool('select_element', {
        ref: refOf(r, /listitem \[ref=[^\]]+\]:$/),
        reason: 'The same confirmation under the form, in German',
      }),
    );
    const next = await run('de', true);
    expect(next.failedStepIndex).toBe(3);
    expect(next.error).toContain('does not show "The group “QA Team” was added successfully."');
    expect(next.keptHeal).toEqual({ kept: 'proposed', version: base.version + 2 });
    const pending = (await stack.call('GET', `/v1/test-cases/${testCaseId}/steps/proposals`)).body.proposals[0];
    expect(pending.healed[0]).toMatchObject({
      index: 3,
      via: 'expectation',
      reason:
        'the listitem now reads "Die Gruppe „QA Team“ wurde erfolgreich hinzugefügt. Dismiss"; accept to update this assertion',
    });
    expect((await stack.call('POST', `/v1/test-cases/${testCaseId}/steps/${base.version + 2}/accept`)).status).toBe(
      200,
    );
    const accepted = await run('de', true);
    expect(accepted).toMatchObject({ status: 'PASSED', llmRequests: 0 });
    // The English build now fails on the German expectations: the accepted text is what the test checks.
    expect((await run('original', false)).status).toBe('FAILED');
  }, 120_000);
});
