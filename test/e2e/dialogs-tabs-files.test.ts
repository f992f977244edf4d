import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Step } from '../../src/domain/steps.js';
import { replaySteps } from '../../src/browser/replay.js';
import { RunValues } from '../../src/browser/values.js';
import { createRouter, lastPrompt, refOf, tool, type AgentMove } from '../support/agent-script.js';
import { startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';
import type { FlowVariant } from '../support/fixtures/flows.js';
import { runPlaywrightSpec } from '../support/playwright-runner.js';
import { startScriptedLlm, type ScriptedLlm } from '../support/scripted-llm.js';
import { startStack, waitForGeneration, waitForRun, type Stack } from '../support/worker-context.js';

// Dialogs, tabs and popups, downloads and uploads: each fixture burned in through the API with scripted moves,
// replayed with no LLM call, exported and run under @playwright/test; each broken variant fails its replay.
describe('dialogs, tabs, downloads and uploads on the real stack', () => {
  let fixture: FixtureApps;
  let llm: ScriptedLlm;
  let stack: Stack;
  const router = createRouter();
  const ids: Record<string, string> = {};
  const apps: Record<string, { app: string; env: string }> = {};

  beforeAll(async () => {
    [fixture, llm] = await Promise.all([startFixtureApps(), startScriptedLlm()]);
    stack = await startStack({ llm });
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await Promise.all([fixture?.stop(), llm?.stop()]);
  });

  /** Burns in `goal` on the page at `path` with the scripted moves; returns the recorded steps. */
  async function burnIn(key: string, path: string, goal: string, expectedResult: string, moves: AgentMove[]): Promise<Step[]> {
    const app = (await stack.call('POST', '/v1/applications', { name: `Flows ${key}` })).body.shortId as string;
    const env = (await stack.call('POST', `/v1/applications/${app}/environments`, { name: 'Local', url: `${fixture.url}${path}` })).body.shortId as string;
    apps[key] = { app, env };
    router.add(goal, moves);
    llm.enqueue(...moves.map(() => router.reply));
    const before = llm.requests.length;
    const created = await stack.call('POST', '/v1/test-cases', { name: key, goal, expectedResult, applicationShortId: app });
    expect(created.status).toBe(200);
    ids[key] = created.body.testCase.id;
    const generated = await waitForGeneration(stack, ids[key]!);
    expect(generated.failureReason).toBeNull();
    expect(generated.generationStatus).toBe('COMPLETED');
    expect(llm.requests.length - before).toBe(moves.length);
    return generated.steps.steps as Step[];
  }

  async function replay(key: string, variant: FlowVariant = 'original') {
    fixture.flows.setFlowVariant(variant);
    try {
      const before = llm.requests.length;
      const result = await stack.activities.executeTest({ projectId: stack.tenant.projectId, testCaseId: ids[key]!, artifactPrefix: `runs/flows/${key}-${variant}` });
      expect(llm.requests.length).toBe(before);
      return result;
    } finally {
      fixture.flows.setFlowVariant('original');
    }
  }

  async function exported(key: string): Promise<string> {
    const res = await stack.app.request(`/v1/test-cases/${ids[key]}/playwright`, { headers: { authorization: `Bearer ${stack.tenant.token}` } });
    expect(res.status).toBe(200);
    return res.text();
  }

  it('cancelling a guarded delete keeps the item; the recorded answer, not a default, decides', async () => {
    const steps = await burnIn('cancel-delete', '/flows/list', 'Start deleting Milk but cancel', 'Milk is still on the list', [
      // Without an answer the confirm is dismissed and the step is not recorded: the agent is told to answer it.
      (r) => tool('click', { ref: refOf(r, 'button "Delete Milk"'), description: 'Delete Milk' }),
      (r) => {
        expect(lastPrompt(r)).toContain('a confirm dialog opened saying "Delete "Milk"? This cannot be undone." and was dismissed: call handle_dialog');
        return tool('handle_dialog', { accept: false });
      },
      (r) => tool('click', { ref: refOf(r, 'button "Delete Milk"'), description: 'Delete Milk, then cancel' }),
      () => tool('assert_text', { text: 'Kept Milk', description: 'The delete was cancelled' }),
      (r) => tool('assert_visible', { ref: refOf(r, 'button "Delete Milk"'), description: 'Milk is still listed' }),
      () => tool('done', { summary: 'Cancelled the delete' }),
    ]);
    expect(steps.map((s) => s.action)).toEqual(['click', 'assert_text', 'assert_visible']);
    expect(steps[0]!.dialogs).toEqual([{ type: 'confirm', message: 'Delete "Milk"? This cannot be undone.', accept: false }]);
    expect((await replay('cancel-delete')).status).toBe('PASSED');

    // The app deletes without asking: the recorded confirm never opens, and the run says so.
    const broken = await replay('cancel-delete', 'noConfirm');
    expect(broken.status).toBe('FAILED');
    expect(broken.failedStepIndex).toBe(0);
    expect(broken.failureKind).toBe('assertion');
    expect(broken.error).toContain('expected a confirm dialog saying "Delete "Milk"? This cannot be undone.", but none opened');
  }, 90_000);

  it('accepting a confirm deletes, a prompt is answered with recorded text', async () => {
    const steps = await burnIn('accept-delete', '/flows/list', 'Delete Bread and rename the list to Weekly shop', 'Bread is gone and the list is called Weekly shop', [
      () => tool('handle_dialog', { accept: true }),
      (r) => tool('click', { ref: refOf(r, 'button "Delete Bread"'), description: 'Delete Bread' }),
      () => tool('assert_text', { text: 'Deleted Bread', description: 'Bread was deleted' }),
      () => tool('handle_dialog', { accept: true, promptText: 'Weekly shop' }),
      (r) => tool('click', { ref: refOf(r, 'button "Rename list"'), description: 'Rename the list' }),
      (r) => tool('assert_visible', { ref: refOf(r, 'heading "Weekly shop"'), description: 'The list has its new name' }),
      () => tool('done', { summary: 'Deleted and renamed' }),
    ]);
    expect(steps[0]!.dialogs).toEqual([{ type: 'confirm', message: 'Delete "Bread"? This cannot be undone.', accept: true }]);
    expect(steps[2]!.dialogs).toEqual([{ type: 'prompt', message: 'New name for the list', accept: true, promptText: 'Weekly shop' }]);
    expect((await replay('accept-delete')).status).toBe('PASSED');
    const broken = await replay('accept-delete', 'noConfirm');
    expect(broken.status).toBe('FAILED');
    expect(broken.error).toContain('none opened');
  }, 90_000);

  it('follows a popup sign-in that posts back to its opener and closes', async () => {
    const steps = await burnIn('popup-sign-in', '/flows/sign-in', 'Sign in with the provider popup', 'The page says who is signed in', [
      (r) => tool('click', { ref: refOf(r, 'button "Sign in with Provider"'), description: 'Open the provider popup' }),
      (r) => {
        // The agent now looks at the popup and is told which tabs are open.
        expect(lastPrompt(r)).toMatch(/Open tabs[^\n]*\n- tab 0: "Sign in"[^\n]*\n- tab 1 \(current\): "Provider: authorize"/);
        return tool('click', { ref: refOf(r, 'button "Allow"'), description: 'Allow access' });
      },
      (r) => {
        expect(lastPrompt(r)).not.toContain('Open tabs');
        return tool('assert_text', { text: 'Signed in as ada@example.com', description: 'Signed in' });
      },
      () => tool('done', { summary: 'Signed in through the popup' }),
    ]);
    expect(steps.map((s) => [s.action, s.page ?? 0, Boolean(s.opensPage)])).toEqual([
      ['click', 0, true],
      ['click', 1, false],
      ['assert_text', 0, false],
    ]);
    expect((await replay('popup-sign-in')).status).toBe('PASSED');
    const broken = await replay('popup-sign-in', 'noPopup');
    expect(broken.status).toBe('FAILED');
    expect(broken.failedStepIndex).toBe(0);
    expect(broken.error).toContain('expected the step to open a new tab or popup, but none opened');
  }, 90_000);

  it('switches between tabs by title and URL and closes one', async () => {
    const steps = await burnIn('tabs', '/flows/sign-in', 'Read the terms in a new tab, go back, then close the terms', 'Back on the sign-in page with the terms closed', [
      (r) => tool('click', { ref: refOf(r, 'link "Terms of service"'), description: 'Open the terms' }),
      (r) => tool('assert_visible', { ref: refOf(r, 'heading "Terms of service"'), description: 'The terms are shown' }),
      () => tool('switch_tab', { tab: 'Sign in', description: 'Back to the sign-in tab' }),
      (r) => tool('assert_visible', { ref: refOf(r, 'button "Sign in with Provider"'), description: 'The sign-in page is shown' }),
      () => tool('switch_tab', { tab: '/flows/terms', description: 'To the terms tab' }),
      () => tool('close_tab', { description: 'Close the terms' }),
      () => tool('assert_text', { text: 'Not signed in', description: 'Back on the sign-in page' }),
      () => tool('done', { summary: 'Done with the terms' }),
    ]);
    expect(steps.map((s) => `${s.action}@${s.page ?? 0}`)).toEqual(['click@0', 'assert_visible@1', 'switch_tab@0', 'assert_visible@0', 'switch_tab@0', 'close_tab@1', 'assert_text@0']);
    expect((await replay('tabs')).status).toBe('PASSED');
  }, 90_000);

  it('checks a downloaded invoice, keeps it as a run artifact, and fails on an empty one', async () => {
    const steps = await burnIn('invoice', '/flows/invoices', 'Download the invoice', 'A PDF invoice is downloaded', [
      (r) => tool('click', { ref: refOf(r, 'link "Download invoice"'), description: 'Download the invoice' }),
      () => tool('assert_text', { text: 'INV-1042', description: 'The invoice is listed' }),
      () => tool('done', { summary: 'Invoice downloaded' }),
    ]);
    expect(steps[0]!.download).toMatchObject({ fileNamePattern: '^invoice-\\d+\\.pdf$', type: 'pdf', minBytes: expect.any(Number) });
    const passed = await replay('invoice');
    expect(passed.status).toBe('PASSED');
    expect(passed.downloads).toEqual([{ stepIndex: 0, fileName: 'invoice-1042.pdf', size: expect.any(Number), type: 'pdf', key: 'runs/flows/invoice-original/downloads/1-invoice-1042.pdf' }]);
    // A presigned link as traces have; the fs blob store serves it from the API's /blobs route.
    const link = new URL(await stack.activityDeps.blobs.presignGet(passed.downloads![0]!.key, 60));
    const bytes = Buffer.from(await (await stack.app.request(`${link.pathname}${link.search}`)).arrayBuffer());
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(bytes.length).toBe(passed.downloads![0]!.size);

    // Through a plan run, the API answers the kept file with a presigned link, as it does the trace.
    expect((await stack.call('PATCH', `/v1/test-cases/${ids.invoice}`, { isEnabled: true })).status).toBe(200);
    const plan = await stack.call('POST', '/v1/test-plans', { name: 'Invoices', testCaseIds: [ids.invoice], applications: [{ applicationShortId: apps.invoice!.app, environmentShortId: apps.invoice!.env }] });
    const started = await stack.call('POST', '/v1/run', { testPlanShortId: plan.body.shortId });
    const run = await waitForRun(stack, started.body.run.shortId);
    const [ran] = run.runTestCases;
    expect(ran).toMatchObject({ result: 'PASSED', downloads: [{ stepIndex: 0, fileName: 'invoice-1042.pdf', type: 'pdf', size: passed.downloads![0]!.size }] });
    const runLink = new URL(ran.downloads[0].url);
    const fromRun = Buffer.from(await (await stack.app.request(`${runLink.pathname}${runLink.search}`)).arrayBuffer());
    expect(fromRun.equals(bytes)).toBe(true);

    const empty = await replay('invoice', 'emptyInvoice');
    expect(empty.status).toBe('FAILED');
    expect(empty.failureKind).toBe('assertion');
    expect(empty.error).toContain('the download "invoice-1042.pdf" is not as recorded: it is empty');
  }, 90_000);

  it('uploads real files of the types the input accepts, which the page decodes', async () => {
    const receipt = /button "Receipt \(image or PDF\)"/;
    const steps = await burnIn('upload', '/flows/upload', 'Attach a receipt as an image and as a PDF', 'Each receipt is accepted', [
      // A name the input does not accept keeps its stem and gets the first accepted type.
      (r) => tool('upload', { ref: refOf(r, receipt), fileName: 'notes.txt', description: 'Attach a receipt' }),
      () => tool('assert_text', { text: 'Receipt notes.png accepted', description: 'The PNG is accepted' }),
      (r) => tool('upload', { ref: refOf(r, receipt), fileName: 'scan.jpg', description: 'Attach a scanned receipt' }),
      () => tool('assert_text', { text: 'Receipt scan.jpg accepted', description: 'The JPEG is accepted' }),
      (r) => tool('upload', { ref: refOf(r, receipt), fileName: 'receipt.pdf', description: 'Attach the PDF receipt' }),
      () => tool('assert_text', { text: 'Receipt receipt.pdf accepted', description: 'The PDF is accepted' }),
      () => tool('done', { summary: 'Receipts accepted' }),
    ]);
    expect(steps.filter((s) => s.action === 'upload').map((s) => s.value)).toEqual(['notes.png', 'scan.jpg', 'receipt.pdf']);
    expect((await replay('upload')).status).toBe('PASSED');

    // The page's check is real: the text file Proctor used to send is rejected, and the replay fails on it.
    const asText = steps.map((s, i) => (i === 0 ? { ...s, value: 'notes.txt' } : s));
    const rejected = await stack.activityDeps.browsers.withContext({}, ({ page }) =>
      replaySteps(page, asText, { startUrl: `${fixture.url}/flows/upload`, baseUrl: fixture.url, values: new RunValues(), timeoutMs: 3_000 }),
    );
    expect(rejected.status).toBe('FAILED');
    expect(rejected.failedStepIndex).toBe(1);
    expect(rejected.error).toContain('Rejected: notes.txt is not an image or a PDF');
  }, 90_000);

  it('exports specs that pass under @playwright/test', async () => {
    const specs = await Promise.all(['cancel-delete', 'accept-delete', 'popup-sign-in', 'tabs', 'invoice', 'upload'].map(exported));
    expect(specs[0]).toContain('answerDialogs(page, [{"type":"confirm"');
    expect(specs[2]).toContain("context.waitForEvent('page')");
    expect(specs[3]).toContain("page = await findTab(pages, 'Sign in');");
    expect(specs[4]).toContain('await checkDownload(await download1');
    for (const spec of specs) {
      const result = await runPlaywrightSpec(spec);
      expect(result.output).toMatch(/1 passed/);
      expect(result.code).toBe(0);
    }
  }, 180_000);
});
