import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { visualBaselines } from '../../activities/visual.js';
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
});
