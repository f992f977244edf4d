import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { VisitedPage } from '../../src/domain/discovery.js';

// Every function Proctor sends into a page, run under the service's own runtime (`node --import tsx`), not
// vitest's transform: tsx rewrites functions in ways a page cannot run (`__name(...)`), and the callers hide
// page errors (an excerpt is '' rather than a failure), so each result is checked for what the page showed.

interface ProbeOutput {
  excerpt: string;
  checkbox: { locator: string; fallbacks: string[]; target?: { role: string; name?: string } };
  secondDelete: { locator: string; fallbacks: string[] };
  sessionStorage: { name: string; value: string }[];
  mismatch: { status: string; error?: string; evidence?: { pageExcerpt?: string } };
  movedTestId: { status: string; changes: { severity: string; summary: string }[] };
  explored: string;
  visited: VisitedPage;
}

async function runProbe(): Promise<ProbeOutput> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/page-functions-probe.ts'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`the probe exited with ${code}:\n${err}${out}`);
  return JSON.parse(out.trim().split('\n').at(-1)!) as ProbeOutput;
}

describe('page functions under tsx', () => {
  it('each one runs in the page and returns what the page shows', async () => {
    const probe = await runProbe();

    // pageExcerpt: the alert first, quoted, with the secret value redacted; then the main content.
    expect(probe.excerpt).toMatch(/^Wrong password for \{\{PASSWORD\}\} \| Sign in /);
    expect(probe.excerpt).toContain('Invoices 1 and 2');
    // Recording: the structural locators it checked in the page (test id, name, id); the second of two equal buttons.
    expect(probe.checkbox.target).toEqual({ role: 'checkbox', name: 'Select all' });
    expect([probe.checkbox.locator, ...probe.checkbox.fallbacks]).toEqual(
      expect.arrayContaining(["getByTestId('select-all')", 'locator(\'input[name="all"]\')', "locator('#all')"]),
    );
    expect(probe.secondDelete.locator).toBe("getByRole('button', { name: 'Delete' }).nth(1)");
    // Browser state: the init script seeded sessionStorage, and capturing read it back from the page.
    expect(probe.sessionStorage).toEqual([{ name: 'draft', value: 'kept' }]);
    // Replay: a text the page does not show fails quoting what it showed (the alert), in the error and the evidence.
    expect(probe.mismatch.status).toBe('FAILED');
    expect(probe.mismatch.error).toContain('the page showed: "Wrong password for ada@example.com | Sign in');
    expect(probe.mismatch.evidence?.pageExcerpt).toMatch(/^Wrong password for ada@example.com \| Sign in/);
    // Replay: the element a moved test id finds is compared in the page with the recorded one, which is used instead.
    expect(probe.movedTestId.status).toBe('PASSED');
    expect(probe.movedTestId.changes).toEqual([
      expect.objectContaining({
        severity: 'cosmetic',
        summary: expect.stringContaining('the step used the recorded button "Save" instead'),
      }),
    ]);
    // Exploring follows the same-origin links it read from the page.
    expect(probe.explored).toContain('Page "Orders" at http://127.0.0.1:');
    // Discovery: a visit reads the page's title, headings, its controls judged, and its same-origin links.
    expect(probe.visited.error).toBeNull();
    expect(probe.visited.title).toBe('Sign in');
    expect(probe.visited.headings).toEqual(['Sign in']);
    expect(probe.visited.actions).toContainEqual({ role: 'button', name: 'Delete', kind: 'destructive' });
    expect(probe.visited.links).toEqual([expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/orders$/)]);
  }, 90_000);
});
