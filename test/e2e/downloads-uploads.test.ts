import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { minimalPdf } from '../../src/browser/steps/files.js';
import { replaySteps } from '../../src/browser/replay/replay.js';
import { RunValues } from '../../src/domain/run-values.js';
import { lastPrompt, refOf, tool } from '../support/agent-script.js';
import { useFlowStack } from '../support/flow-stack.js';
import { expectBatchSpecPassed, runPlaywrightSpecs } from '../support/playwright-runner.js';
import { waitForRun } from '../support/worker-context.js';

// Downloads and uploads: each fixture burned in through the API with scripted moves, replayed with no LLM call,
// exported and run under @playwright/test; an empty download, a text file in disguise and a deleted project file fail.
describe('downloads and uploads on the real stack', () => {
  const flows = useFlowStack();
  const { burnIn, replay, exported, ids, apps } = flows;
  /** The project-file test's exported spec and the file it uploads, which the last test runs with the others. */
  let projectFileSpec: { spec: string; pdf: Buffer } | undefined;

  it('checks a downloaded invoice, keeps it as a run artifact, and fails on an empty one', async () => {
    const steps = await burnIn('invoice', '/flows/invoices', 'Download the invoice', 'A PDF invoice is downloaded', [
      (r) => tool('click', { ref: refOf(r, 'link "Download invoice"'), description: 'Download the invoice' }),
      () => tool('assert_text', { text: 'INV-1042', description: 'The invoice is listed' }),
      () => tool('done', { summary: 'Invoice downloaded' }),
    ]);
    expect(steps[0]!.download).toMatchObject({
      fileNamePattern: '^invoice-\\d+\\.pdf$',
      type: 'pdf',
      minBytes: expect.any(Number),
    });
    const passed = await replay('invoice');
    expect(passed.status).toBe('PASSED');
    expect(passed.downloads).toEqual([
      {
        stepIndex: 0,
        fileName: 'invoice-1042.pdf',
        size: expect.any(Number),
        type: 'pdf',
        key: 'runs/flows/invoice-original/downloads/1-invoice-1042.pdf',
      },
    ]);
    // A presigned link as traces have; the fs blob store serves it from the API's /blobs route.
    const link = new URL(await flows.stack.activityDeps.blobs.presignGet(passed.downloads![0]!.key, 60));
    const bytes = Buffer.from(await (await flows.stack.app.request(`${link.pathname}${link.search}`)).arrayBuffer());
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(bytes.length).toBe(passed.downloads![0]!.size);

    // Through a plan run, the API answers the kept file with a presigned link, as it does the trace.
    expect((await flows.stack.call('PATCH', `/v1/test-cases/${ids.invoice}`, { isEnabled: true })).status).toBe(200);
    const plan = await flows.stack.call('POST', '/v1/test-plans', {
      name: 'Invoices',
      testCaseIds: [ids.invoice],
      applications: [{ applicationShortId: apps.invoice!.app, environmentShortId: apps.invoice!.env }],
    });
    const started = await flows.stack.call('POST', '/v1/run', { testPlanShortId: plan.body.shortId });
    const run = await waitForRun(flows.stack, started.body.run.shortId);
    const [ran] = run.runTestCases;
    expect(ran).toMatchObject({
      result: 'PASSED',
      downloads: [{ stepIndex: 0, fileName: 'invoice-1042.pdf', type: 'pdf', size: passed.downloads![0]!.size }],
    });
    const runLink = new URL(ran.downloads[0].url);
    const fromRun = Buffer.from(
      await (await flows.stack.app.request(`${runLink.pathname}${runLink.search}`)).arrayBuffer(),
    );
    expect(fromRun.equals(bytes)).toBe(true);

    const empty = await replay('invoice', 'emptyInvoice');
    expect(empty.status).toBe('FAILED');
    expect(empty.failureKind).toBe('assertion');
    expect(empty.error).toContain('the download "invoice-1042.pdf" is not as recorded: it is empty');
  }, 90_000);

  it('uploads real files of the types the input accepts, which the page decodes', async () => {
    const receipt = /button "Receipt \(image or PDF\)"/;
    const steps = await burnIn(
      'upload',
      '/flows/upload',
      'Attach a receipt as an image and as a PDF',
      'Each receipt is accepted',
      [
        // A name the input does not accept keeps its stem and gets the first accepted type.
        (r) => tool('upload', { ref: refOf(r, receipt), fileName: 'notes.txt', description: 'Attach a receipt' }),
        () => tool('assert_text', { text: 'Receipt notes.png accepted', description: 'The PNG is accepted' }),
        (r) =>
          tool('upload', { ref: refOf(r, receipt), fileName: 'scan.jpg', description: 'Attach a scanned receipt' }),
        () => tool('assert_text', { text: 'Receipt scan.jpg accepted', description: 'The JPEG is accepted' }),
        (r) =>
          tool('upload', { ref: refOf(r, receipt), fileName: 'receipt.pdf', description: 'Attach the PDF receipt' }),
        () => tool('assert_text', { text: 'Receipt receipt.pdf accepted', description: 'The PDF is accepted' }),
        () => tool('done', { summary: 'Receipts accepted' }),
      ],
    );
    expect(steps.filter((s) => s.action === 'upload').map((s) => s.value)).toEqual([
      'notes.png',
      'scan.jpg',
      'receipt.pdf',
    ]);
    expect((await replay('upload')).status).toBe('PASSED');

    // The page's check is real: the text file Proctor used to send is rejected, and the replay fails on it.
    const asText = steps.map((s, i) => (i === 0 ? { ...s, value: 'notes.txt' } : s));
    const rejected = await flows.stack.activityDeps.browsers.withContext({}, ({ page }) =>
      replaySteps(page, asText, {
        startUrl: `${flows.fixture.url}/flows/upload`,
        baseUrl: flows.fixture.url,
        values: new RunValues(),
        timeoutMs: 3_000,
      }),
    );
    expect(rejected.status).toBe('FAILED');
    expect(rejected.failedStepIndex).toBe(1);
    expect(rejected.error).toContain('Rejected: notes.txt is not an image or a PDF');
  }, 90_000);

  it('uploads a project file sent through the API beforehand, and fails as a test definition once it is gone', async () => {
    expect((await flows.stack.call('POST', '/v1/files', { name: '../etc/passwd', contentBase64: 'AA==' })).status).toBe(
      400,
    );
    expect((await flows.stack.call('POST', '/v1/files', { name: 'x.pdf', contentBase64: 'not base64!' })).status).toBe(
      400,
    );
    const pdf = minimalPdf('Expense receipt: 42.00 EUR');
    const uploaded = await flows.stack.call('POST', '/v1/files', {
      name: 'expense-receipt.pdf',
      contentBase64: pdf.toString('base64'),
    });
    expect(uploaded.status).toBe(201);
    expect(uploaded.body).toMatchObject({
      name: 'expense-receipt.pdf',
      size: pdf.length,
      type: 'pdf',
      mimeType: 'application/pdf',
    });
    expect((await flows.stack.call('GET', '/v1/files')).body.files.map((f: { name: string }) => f.name)).toEqual([
      'expense-receipt.pdf',
    ]);

    const steps = await burnIn(
      'project-file',
      '/flows/upload',
      'Attach the expense receipt PDF',
      'The receipt is accepted',
      [
        (r) => {
          expect(lastPrompt(r)).toContain('Project files you can upload: expense-receipt.pdf');
          return tool('upload', {
            ref: refOf(r, /button "Receipt \(image or PDF\)"/),
            projectFile: 'expense-receipt.pdf',
            description: 'Attach the receipt',
          });
        },
        () =>
          tool('assert_text', { text: 'Receipt expense-receipt.pdf accepted', description: 'The receipt is accepted' }),
        () => tool('done', { summary: 'Receipt attached' }),
      ],
    );
    expect(steps[0]).toMatchObject({ action: 'upload', value: 'expense-receipt.pdf', projectFile: true });
    expect((await replay('project-file')).status).toBe('PASSED');

    // Exported while the project has the file; the last test runs the spec, which reads it from PROCTOR_FILES_DIR.
    projectFileSpec = { spec: await exported('project-file'), pdf };

    expect((await flows.stack.call('DELETE', '/v1/files/expense-receipt.pdf')).status).toBe(200);
    const gone = await replay('project-file');
    expect(gone.status).toBe('FAILED');
    expect(gone.failureKind).toBe('test-definition');
    expect(gone.error).toContain(
      'the step uploads the project file "expense-receipt.pdf", which this project does not have',
    );
    expect((await flows.stack.call('DELETE', '/v1/files/expense-receipt.pdf')).status).toBe(404);
  }, 90_000);

  it('exports specs that pass under @playwright/test, the project file read from PROCTOR_FILES_DIR', async () => {
    const [invoice, upload] = await Promise.all(['invoice', 'upload'].map(exported));
    expect(invoice).toContain('await checkDownload(await download1');
    // The project-file spec reads the file from PROCTOR_FILES_DIR (the other two read nothing from there).
    expect(projectFileSpec, 'the project-file test exported its spec').toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), 'proctor-files-'));
    try {
      writeFileSync(join(dir, 'expense-receipt.pdf'), projectFileSpec!.pdf);
      // All three in one runner, each its own file with its own verdict: one runner start instead of two.
      const run = await runPlaywrightSpecs(
        { invoice: invoice!, upload: upload!, 'project-file': projectFileSpec!.spec },
        { PROCTOR_FILES_DIR: dir },
      );
      for (const name of ['invoice', 'upload', 'project-file']) expectBatchSpecPassed(run, name);
      expect(run.output).toMatch(/3 passed/);
      expect(run.code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
