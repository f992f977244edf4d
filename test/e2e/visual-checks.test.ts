import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveOverHttp, type ServedApp } from '../support/http-server.js';
import { minioBucket, startInstalledMinio, type MinioServer } from '../support/minio.js';
import { startScriptedLlm, type ScriptedLlm } from '../support/scripted-llm.js';
import { burnInOrderPage, orderChecks, runningClock } from '../support/order-page.js';
import { startStack, type Stack } from '../support/worker-context.js';
import { createS3BlobStore } from '../../src/storage/s3.js';
import type { BlobStore } from '../../src/storage/blob-store.js';

// Visual checks on the real stack (Temporal worker, Postgres, Chromium, MinIO, the scripted model over HTTP). An order
// page whose stylesheet breaks keeps its DOM and texts: every text assertion passes, the visual check fails with a
// diff. The page has a running clock, an endless CSS animation, a transition and anti-aliased text: none of them may
// make the good build flake. The clock is masked at record time; a check without the mask fails on it.

type Build = 'good' | 'broken';

const goodCss = `body { font-family: 'DejaVu Sans', sans-serif; margin: 24px; color: #222; }
h1 { font-size: 28px; transition: color 2s; }
.card { border: 1px solid #888; border-radius: 8px; padding: 16px; width: 320px; box-shadow: 2px 2px 6px #0003; }
.spinner { width: 24px; height: 24px; border: 3px solid #09c; border-top-color: transparent; border-radius: 50%;
  animation: spin 0.7s linear infinite; }
@keyframes spin { to { transform: rotate(360deg); } }
button { background: #09c; color: white; border: 0; padding: 8px 14px; border-radius: 4px; }`;
// Broken: the card's layout collapses and the button loses its styling. Same DOM, same texts.
const brokenCss = goodCss.replace('width: 320px', 'width: 120px').replace('background: #09c', 'background: none');

const page = `<!doctype html><html lang="en"><head><title>Order</title><link rel="stylesheet" href="/style.css"></head>
<body><main>
<h1>Order summary</h1>
<div class="card"><p>2 × Coffee beans</p><p>Total: 24.00 EUR</p><button>Place order</button></div>
<div class="spinner" aria-hidden="true"></div>
${runningClock}
<script>document.querySelector('h1').style.color = '#036';</script>
</main></body></html>`;

describe('visual checks', () => {
  let minio: MinioServer;
  let blobs: BlobStore;
  let llm: ScriptedLlm;
  let stack: Stack;
  let site: ServedApp;
  let build: Build = 'good';
  let testCaseId: string;

  beforeAll(async () => {
    minio = await startInstalledMinio();
    blobs = createS3BlobStore(minioBucket(minio, 'proctor-visual'));
    await blobs.ensureReady();
    [llm, site] = await Promise.all([
      startScriptedLlm(),
      serveOverHttp(
        new Hono()
          .get('/order', (c) => c.html(page))
          .get('/style.css', (c) =>
            c.body(build === 'good' ? goodCss : brokenCss, 200, { 'content-type': 'text/css' }),
          ),
      ),
    ]);
    stack = await startStack({ llm, blobs });
    const app = (await stack.call('POST', '/v1/applications', { name: 'Shop' })).body.shortId;
    await stack.call('POST', `/v1/applications/${app}/environments`, { name: 'Local', url: `${site.url}/order` });
    const { heading, total, looks, done } = orderChecks;
    testCaseId = (await burnInOrderPage(stack, llm, app, [heading, total, looks, done])).id;
  }, 180_000);
  afterAll(async () => {
    await stack?.close();
    await Promise.all([llm?.stop(), site?.close(), minio?.stop()]);
  });

  const run = async (on: Build) => {
    build = on;
    return stack.activities.executeTest({
      projectId: stack.tenant.projectId,
      testCaseId,
      artifactPrefix: `runs/${randomUUID()}/t`,
    });
  };
  const steps = async () => (await stack.call('GET', `/v1/test-cases/${testCaseId}`)).body.steps;

  it('records the check with the clock masked and its baseline in the blob store', async () => {
    const recorded = await steps();
    expect(recorded.steps[2]).toMatchObject({
      action: 'assert_screenshot',
      visual: { masks: ["locator('#clock')"], baseline: expect.stringMatching(/^[a-z0-9]+$/) },
    });
    const keys: string[] = [];
    for await (const b of blobs.list(`baselines/${stack.tenant.projectId}/${testCaseId}/`)) keys.push(b.key);
    expect(keys).toHaveLength(1);
  });

  it('passes 20 replays in a row on the good build: no flake from the clock, animations or anti-aliasing', async () => {
    const statuses: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await run('good');
      statuses.push(r.status === 'PASSED' ? 'PASSED' : `${r.status}: ${r.error}`);
    }
    expect(statuses).toEqual(Array(20).fill('PASSED'));
  }, 600_000);

  it('fails the visual check with a diff image on a broken stylesheet, while every text assertion passes', async () => {
    const r = await run('broken');
    expect(r.status).toBe('FAILED');
    // Steps 1 and 2 (the text assertions) passed: the failure is the visual check's.
    expect(r.failedStepIndex).toBe(2);
    expect(r.failureKind).toBe('visual');
    expect(r.error).toMatch(
      /looks different from its baseline: [\d,]+ of [\d,]+ pixels differ \([\d.]+%; allowed 0%\)/,
    );
    const diff = PNG.sync.read(await blobs.get(r.evidence!.diffKey!));
    expect(diff.width).toBeGreaterThan(0);
    // Red pixels mark the difference.
    let red = 0;
    for (let i = 0; i < diff.data.length; i += 4)
      if (diff.data[i] === 255 && diff.data[i + 1] === 0 && diff.data[i + 2] === 0) red++;
    expect(red).toBeGreaterThan(100);
    expect(r.keptHeal).toMatchObject({ kept: 'proposed' });

    // The new image is proposed as the baseline; accepted, the broken build is what the check expects.
    const proposals = (await stack.call('GET', `/v1/test-cases/${testCaseId}/steps/proposals`)).body.proposals;
    const proposal = proposals.find((p: { status: string }) => p.status === 'PENDING');
    expect(proposal.healed).toMatchObject([{ index: 2, via: 'baseline' }]);
    expect(await run('good')).toMatchObject({ status: 'PASSED' });
    const accepted = await stack.call('POST', `/v1/test-cases/${testCaseId}/steps/${proposal.version}/accept`);
    expect(accepted.status).toBe(200);
    expect(await run('broken')).toMatchObject({ status: 'PASSED' });
    expect(await run('good')).toMatchObject({ status: 'FAILED', failureKind: 'visual' });
  }, 180_000);

  it('fails on the clock once the mask is taken off in the step editor', async () => {
    const current = await steps();
    const edited = current.steps.map((s: { action: string; visual?: object }) =>
      s.action === 'assert_screenshot' ? { ...s, visual: {} } : s,
    );
    const saved = await stack.call('PUT', `/v1/test-cases/${testCaseId}/steps`, {
      basedOnVersion: current.version,
      steps: edited,
    });
    expect(saved.status).toBe(200);
    // No baseline under the new name yet: the first replay records it.
    expect(await run('broken')).toMatchObject({ status: 'PASSED' });
    const r = await run('broken');
    expect(r).toMatchObject({ status: 'FAILED', failureKind: 'visual', failedStepIndex: 2 });
  }, 120_000);
});
