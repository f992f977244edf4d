import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The layers of docs/architecture.md, enforced: dependency-cruiser checks every import of src/, workflows/ and
// activities/ (type-only ones included) against .dependency-cruiser.mjs: no cycle, no import of a layer above.

const root = fileURLToPath(new URL('../..', import.meta.url));

function depcruise(): Promise<{ code: number; output: string }> {
  const bin = fileURLToPath(
    new URL('../../node_modules/dependency-cruiser/bin/dependency-cruise.mjs', import.meta.url),
  );
  const args = [bin, 'src', 'workflows', 'activities', '--config', '.dependency-cruiser.mjs', '--output-type', 'err'];
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: root, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, output: `${stdout}${stderr}`.trim() });
    });
  });
}

describe('layers', () => {
  it('no import cycle and no import of a layer above (.dependency-cruiser.mjs)', async () => {
    const { code, output } = await depcruise();
    // On failure the message is dependency-cruiser's list: rule, importing file -> imported file.
    expect(code, output).toBe(0);
    expect(output).toMatch(/no dependency violations found/);
  });
});
