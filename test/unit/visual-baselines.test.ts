import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { visualBaselines, visualEvidence } from '../../activities/visual.js';
import type { DeviceSettings } from '../../src/domain/device.js';
import type { Step } from '../../src/domain/steps.js';
import { createFsBlobStore } from '../../src/storage/fs.js';

// Which baseline a visual check is compared with. A preview deployment is a new environment (its own URL): if it
// had no baseline, its first run would record what it shows and pass, so a change that breaks the stylesheet would
// pass its own review. It is compared with another environment's baseline on the same device instead.
describe('visual baselines across environments and devices', () => {
  const dir = mkdtempSync(join(tmpdir(), 'proctor-baselines-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const blobs = createFsBlobStore({ dir, secret: 'a-secret-of-sixteen-chars', publicUrl: 'http://127.0.0.1:1' });
  const step = {
    action: 'assert_screenshot',
    description: 'The order looks right',
    visual: { baseline: 'b1' },
  } as Step;
  const phone: DeviceSettings = {
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 3,
    isMobile: true,
    hasTouch: true,
  };
  const at = (baseUrl: string, device?: DeviceSettings) =>
    visualBaselines({ blobs }, { projectId: 'p1', testCaseId: 't1', baseUrl, device }, 'compare');

  it('reads its own, else another environment on the same device, else none', async () => {
    await at('https://prod.example').write(step, Buffer.from('prod desktop'));
    await at('https://prod.example', phone).write(step, Buffer.from('prod phone'));
    expect(String(await at('https://prod.example').read(step))).toBe('prod desktop');
    // A preview with none of its own: the same device's baseline from production.
    expect(String(await at('https://pr-7.preview.example').read(step))).toBe('prod desktop');
    expect(String(await at('https://pr-7.preview.example', phone).read(step))).toBe('prod phone');
    // Its own, once it has one, comes first.
    await at('https://pr-7.preview.example').write(step, Buffer.from('preview desktop'));
    expect(String(await at('https://pr-7.preview.example').read(step))).toBe('preview desktop');
    // A device nobody has a baseline for: none (another device's image would differ by size alone).
    const tablet = { ...phone, viewport: { width: 820, height: 1180 }, deviceScaleFactor: 2 };
    expect(await at('https://prod.example', tablet).read(step)).toBeUndefined();
    // Another step's baselines are not this one's.
    expect(await at('https://prod.example').read({ ...step, visual: { baseline: 'b2' } } as Step)).toBeUndefined();
  });

  it('keeps each differing check with its own images and the baseline it was compared with, in step order', async () => {
    const second = { ...step, locator: "getByRole('button')", visual: { baseline: 'b2' } } as Step;
    const steps = [{ action: 'assert_text', description: 'Open' } as Step, second, step];
    await at('https://prod.example').write(second, Buffer.from('prod button'));
    // This preview has no baselines of its own: each check is compared with another environment's.
    const preview = visualBaselines(
      { blobs },
      { projectId: 'p1', testCaseId: 't1', baseUrl: 'https://pr-8.preview.example', device: undefined },
      'compare',
      'runs/r1/t1',
    );
    const pageBaseline = await preview.read(step);
    await preview.differs(step, { actual: Buffer.from('new page'), diff: Buffer.from('page diff'), ratio: 0.25 });
    await preview.read(second);
    await preview.differs(second, { actual: Buffer.from('new button'), ratio: 1 });
    const evidence = visualEvidence(steps, preview.failures());
    expect(evidence.visualChanges).toEqual([
      {
        stepIndex: 1,
        locator: "getByRole('button')",
        ratio: 1,
        baselineKey: expect.stringMatching(/^baselines\/p1\/t1\/b2\/[0-9a-f]{16}\/default\.png$/),
        actualKey: 'runs/r1/t1/visual-b2-actual.png',
      },
      {
        stepIndex: 2,
        ratio: 0.25,
        baselineKey: expect.stringMatching(/^baselines\/p1\/t1\/b1\/[0-9a-f]{16}\/default\.png$/),
        actualKey: 'runs/r1/t1/visual-b1-actual.png',
        diffKey: 'runs/r1/t1/visual-b1-diff.png',
      },
    ]);
    expect(String(await blobs.get(evidence.visualChanges![0]!.baselineKey!))).toBe('prod button');
    // The one it was compared with (production's or pr-7's, whichever the store lists first).
    expect(String(await blobs.get(evidence.visualChanges![1]!.baselineKey!))).toBe(String(pageBaseline));
    expect(String(await blobs.get('runs/r1/t1/visual-b1-diff.png'))).toBe('page diff');
    // The failure's own diff and image are the first difference's.
    expect(evidence).toMatchObject({ actualKey: 'runs/r1/t1/visual-b2-actual.png' });
    expect(evidence.diffKey).toBeUndefined();
    expect(visualEvidence(steps, [])).toEqual({});
  });
});
