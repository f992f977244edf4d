import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../activities/index.js';
import { pageFunction } from '../../src/browser/page-function.js';
import type { Step } from '../../src/domain/steps.js';
import { silentLogger } from '../../src/logger.js';
import { createFsBlobStore } from '../../src/storage/fs.js';
import { createActivityDeps } from '../../src/worker/worker.js';
import { createApiContext, type ApiContext } from '../support/app-context.js';
import { serveOverHttp, type ServedApp } from '../support/http-server.js';
import { insertRecordedTestCase, applicationIdOf } from '../support/recorded.js';
import { rowIdOf } from '../support/row-ids.js';

// A replay that fails after typing a secret config into an ordinary text field: its failure screenshot shows the
// field (and the page's echo of it) painted over, while a plain config typed the same way stays readable.

const secret = 'Zq7-SECRET-Kx4';
const plain = 'Ada Lovelace';
const field =
  'font: 48px monospace; width: 640px; height: 90px; border: 0; padding: 0 8px; display: block; margin: 16px; color: #000; background: #fff';
const page = `<!doctype html><html><body style="margin: 0; background: #fff">
  <input id="code" type="text" aria-label="Access code" style="${field}" oninput="document.getElementById('echo').textContent = this.value">
  <input id="name" type="text" aria-label="Name" style="${field}">
  <p id="echo" style="${field}; display: block"></p>
</body></html>`;

const steps: Step[] = [
  { action: 'navigate', value: '/', description: 'Open the form' },
  {
    action: 'fill',
    locator: "getByRole('textbox', { name: 'Access code' })",
    value: '{{ACCESS_CODE}}',
    description: 'Type the code',
  },
  {
    action: 'fill',
    locator: "getByRole('textbox', { name: 'Name' })",
    value: '{{DISPLAY_NAME}}',
    description: 'Type the name',
  },
  { action: 'assert_visible', locator: "getByRole('heading', { name: 'Welcome back' })", description: 'Signed in' },
];

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}
interface Region {
  /** Distinct colours in the box of each image, and how many of its pixels differ between them. */
  distinct: [number, number];
  differing: number;
  pixels: number;
  firstColor: number[];
}

/** Both PNGs decoded by the browser itself (a canvas), compared inside `box` (CSS pixels, inset to skip edges). */
const compareRegion = pageFunction<
  (args: { a: string; b: string; box: Box }) => Promise<Region>
>(`async ({ a, b, box }) => {
  const pixels = async (png) => {
    const img = new Image();
    img.src = 'data:image/png;base64,' + png;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const g = canvas.getContext('2d');
    g.drawImage(img, 0, 0);
    return g.getImageData(Math.round(box.x), Math.round(box.y), Math.round(box.width), Math.round(box.height)).data;
  };
  const [pa, pb] = [await pixels(a), await pixels(b)];
  const colours = (p) => { const set = new Set(); for (let i = 0; i < p.length; i += 4) set.add(p[i] + ',' + p[i + 1] + ',' + p[i + 2]); return set.size; };
  let differing = 0;
  for (let i = 0; i < pa.length; i += 4) if (pa[i] !== pb[i] || pa[i + 1] !== pb[i + 1] || pa[i + 2] !== pb[i + 2]) differing++;
  return { distinct: [colours(pa), colours(pb)], differing, pixels: pa.length / 4, firstColor: [pa[0], pa[1], pa[2]] };
}`);

describe('failure screenshots and traces show no secret typed into a field', () => {
  let ctx: ApiContext;
  let site: ServedApp;
  let deps: ReturnType<typeof createActivityDeps>;
  const blobDir = mkdtempSync(join(tmpdir(), 'proctor-blobs-'));

  beforeAll(async () => {
    ctx = await createApiContext('pglite');
    site = await serveOverHttp(new Hono().get('/', (c) => c.html(page)));
    deps = createActivityDeps(
      {
        browser: { concurrency: 2, allowPrivateNetworks: true },
        stepTimeoutMs: 1_500,
        notify: { appUrl: 'https://app.proctor.test' },
      },
      {
        db: ctx.db,
        blobs: createFsBlobStore({ dir: blobDir, secret: 'z'.repeat(32), publicUrl: 'http://127.0.0.1:3000' }),
        logger: silentLogger,
      },
    );
  });
  afterAll(async () => {
    await deps?.browsers.close();
    await site?.close();
    await ctx?.close();
    rmSync(blobDir, { recursive: true, force: true });
  });

  it('paints the secret field and its echo over; the plain field stays as typed', async () => {
    const configIds: string[] = [];
    for (const body of [
      { name: 'ACCESS_CODE', value: secret, isSecret: true },
      { name: 'DISPLAY_NAME', value: plain },
    ]) {
      const created = await ctx.call('POST', '/v1/configs', body);
      expect(created.status).toBe(201);
      configIds.push(await rowIdOf(ctx.db, 'configs', created.body.shortId));
    }
    const app = await ctx.call('POST', '/v1/applications', { name: 'Form' });
    const applicationId = await applicationIdOf(ctx.db, app.body.shortId);
    const testCaseId = await insertRecordedTestCase(ctx.db, {
      projectId: ctx.tenant.projectId,
      applicationId,
      name: 'Sign in with a code',
      steps,
    });
    await ctx.db.updateTable('test_cases').set({ config_ids: configIds }).where('id', '=', testCaseId).execute();

    const result = await createActivities(deps).executeTest({
      projectId: ctx.tenant.projectId,
      testCaseId,
      artifactPrefix: 'runs/r1/t1',
      baseUrl: site.url,
    });
    expect(result.status).toBe('FAILED');
    expect(result.failedStepIndex).toBe(3);
    const masked = (await deps.blobs.get(result.screenshotKey!)).toString('base64');

    // The trace's screencast would show the typed secret as pixels: it is dropped, the DOM snapshots stay.
    const trace = unzipSync(await deps.blobs.get(result.traceKey!));
    expect(Object.keys(trace).filter((name) => name.startsWith('screencast/'))).toEqual([]);
    expect(strFromU8(trace['trace.trace']!)).not.toContain('"screencast-frame"');
    expect(strFromU8(trace['trace.trace']!)).toContain('frame-snapshot');
    // A test that types no secret keeps its screencast.
    const plainId = await insertRecordedTestCase(ctx.db, {
      projectId: ctx.tenant.projectId,
      applicationId,
      name: 'Type a name',
      steps: [steps[0]!, steps[2]!],
    });
    await ctx.db.updateTable('test_cases').set({ config_ids: configIds }).where('id', '=', plainId).execute();
    const plainRun = await createActivities(deps).executeTest({
      projectId: ctx.tenant.projectId,
      testCaseId: plainId,
      artifactPrefix: 'runs/r1/t2',
      baseUrl: site.url,
    });
    expect(plainRun.status).toBe('PASSED');
    const plainTrace = unzipSync(await deps.blobs.get(plainRun.traceKey!));
    expect(Object.keys(plainTrace).filter((name) => name.startsWith('screencast/')).length).toBeGreaterThan(0);

    // The same page, the same values typed, screenshot without masks: what the failure screenshot would have shown.
    await deps.browsers.withContext({}, async ({ page: p }) => {
      await p.goto(site.url);
      await p.getByRole('textbox', { name: 'Access code' }).fill(secret);
      await p.getByRole('textbox', { name: 'Name' }).fill(plain);
      const unmasked = (await p.screenshot({ fullPage: true })).toString('base64');
      const inset = async (selector: string): Promise<Box> => {
        const b = (await p.locator(selector).boundingBox())!;
        return { x: b.x + 4, y: b.y + 4, width: b.width - 8, height: b.height - 8 };
      };
      const boxes = { code: await inset('#code'), echo: await inset('#echo'), name: await inset('#name') };
      await p.setContent('<!doctype html><title>compare</title>');
      const region = (box: Box) => p.evaluate(compareRegion, { a: masked, b: unmasked, box });

      for (const where of ['code', 'echo'] as const) {
        const r = await region(boxes[where]);
        // Masked: one solid colour (Playwright's mask, #FF00FF) where the unmasked shot has glyphs on white.
        expect({ where, distinct: r.distinct[0], colour: r.firstColor }).toEqual({
          where,
          distinct: 1,
          colour: [255, 0, 255],
        });
        expect(r.distinct[1]).toBeGreaterThan(2);
        expect(r.differing).toBe(r.pixels);
      }
      const name = await region(boxes.name);
      expect(name.distinct[0]).toBeGreaterThan(2); // the plain value is drawn, not masked
      expect(name.differing).toBe(0);
    });
  });
});
