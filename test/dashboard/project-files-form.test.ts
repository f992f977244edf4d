import { describe, expect, it } from 'vitest';
import { expectAccessible } from '../support/dashboard.js';
import { expectWithinPageBudget } from '../support/page-checks.js';
import { useSignedInDashboard } from '../support/signed-in-dashboard.js';
import { loadProjectFile, maxProjectFileBytes } from '../../src/services/project-files.js';

// Issue 24: the project's files for tests' file inputs, uploaded from the dashboard in Chromium (a plain multipart
// form) to the real app, Postgres and blob store. The stored bytes are the chosen file's; a refused file stores nothing.

const pdf = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

describe('dashboard: project files', () => {
  const rig = useSignedInDashboard();
  const files = async () =>
    (await rig.stack.call('GET', '/v1/files')).body.files as Array<{ name: string; size: number; type: string }>;

  it('uploads a file under its own name or a given one; a name steps cannot use and a file over the limit are refused and store nothing', async () => {
    const page = rig.dash.page;
    await page.getByRole('link', { name: 'Files' }).click();
    await expectAccessible(page);
    expect(await page.getByText('No files yet.').count()).toBe(1);

    await page
      .getByLabel('File', { exact: true })
      .setInputFiles({ name: 'my receipt.pdf', mimeType: 'application/pdf', buffer: pdf });
    await page.getByRole('button', { name: 'Upload' }).click();
    await expect.poll(() => page.locator('#name-error').textContent()).toMatch(/letters, digits/);
    expect(await files()).toEqual([]);
    await expectAccessible(page);

    const big = Buffer.alloc(maxProjectFileBytes + 1, 7);
    await page
      .getByLabel('File', { exact: true })
      .setInputFiles({ name: 'big.bin', mimeType: 'application/octet-stream', buffer: big });
    await page.getByLabel('Name in steps').fill('');
    await page.getByRole('button', { name: 'Upload' }).click();
    await expect.poll(() => page.locator('#file-error').textContent()).toMatch(/at most 716800/);
    expect(await files()).toEqual([]);

    await page
      .getByLabel('File', { exact: true })
      .setInputFiles({ name: 'my receipt.pdf', mimeType: 'application/pdf', buffer: pdf });
    await page.getByLabel('Name in steps').fill('receipt.pdf');
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByRole('row', { name: /receipt\.pdf/ }).waitFor();
    await page
      .getByLabel('File', { exact: true })
      .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello from the dashboard\n') });
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByRole('row', { name: /notes\.txt/ }).waitFor();
    const byName = (await files()).sort((a, b) => a.name.localeCompare(b.name));
    expect(byName).toEqual([
      expect.objectContaining({ name: 'notes.txt', type: 'text', size: 25 }),
      expect.objectContaining({ name: 'receipt.pdf', type: 'pdf', size: pdf.length }),
    ]);
    // What a step's upload will send is the chosen file's bytes.
    const stored = await loadProjectFile(rig.stack.activityDeps, rig.stack.tenant.projectId, 'receipt.pdf');
    expect(stored?.buffer.equals(pdf)).toBe(true);
    await expectAccessible(page);
  }, 60_000);

  it("deletes a file; another project's session gets 404 and the file stays", async () => {
    const elsewhere = await rig.dash.signInElsewhere(rig.other.token);
    await elsewhere.goto(`${rig.dash.url}/files`);
    const csrf = (await elsewhere.locator('input[name=_csrf]').first().getAttribute('value'))!;
    expect(
      (await elsewhere.request.post(`${rig.dash.url}/files/receipt.pdf/delete`, { form: { _csrf: csrf } })).status(),
    ).toBe(404);
    await elsewhere.context().close();
    expect((await files()).map((f) => f.name)).toContain('receipt.pdf');

    const page = rig.dash.page;
    await page.getByRole('button', { name: 'Delete receipt.pdf' }).click();
    await page.waitForURL(/\/files$/);
    expect((await files()).map((f) => f.name)).toEqual(['notes.txt']);
    expect(await loadProjectFile(rig.stack.activityDeps, rig.stack.tenant.projectId, 'receipt.pdf')).toBeUndefined();
  });

  it('refuses a body over the limit by its length, before reading it; the page stays within the size budget', async () => {
    const page = rig.dash.page;
    const csrf = (await page.locator('input[name=_csrf]').first().getAttribute('value'))!;
    const huge = await page.request.post(`${rig.dash.url}/files`, {
      multipart: {
        _csrf: csrf,
        file: { name: 'huge.bin', mimeType: 'application/octet-stream', buffer: Buffer.alloc(4 * 1024 * 1024) },
      },
    });
    expect(huge.status()).toBe(413);
    expect((await files()).map((f) => f.name)).toEqual(['notes.txt']);
    await expectWithinPageBudget(rig.dash, ['/files']);
  });
});
