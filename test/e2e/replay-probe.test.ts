import { describe, expect, it } from 'vitest';
import type { Step } from '../../src/domain/steps.js';
import { useServedPage } from '../support/served-page.js';

// Replay reads a step's element while it waits for it (one round trip for the wait and the target check's first
// read; bench/README.md). That read is of the first element any of the step's locators matches in page order, so
// it may only stand for the check when that element is the primary's; these steps put a fallback's element first,
// late, renamed or missing, and check which element the step acted on and what replay reported.

const page = `<!doctype html><title>Draft</title>
<p id="log">nothing yet</p>
<button onclick="log('Discard')">Discard</button>
<button onclick="log('Save')">Save</button>
<button onclick="log('Send')">Publish</button>
<h2 id="late"></h2>
<script>
  function log(what) { document.getElementById('log').textContent = 'clicked ' + what; }
  setTimeout(() => { document.getElementById('late').textContent = 'Ready to send'; }, 300);
  setTimeout(() => { const b = document.createElement('button'); b.textContent = 'Archive';
    b.onclick = () => log('Archive'); document.body.append(b); }, 300);
</script>`;

const served = useServedPage(page);

const replay = (steps: Step[]) => served.replay(steps, { timeoutMs: 1_500, probeMs: 500 });

const click = (locator: string, fallbacks: string[], name: string): Step => ({
  action: 'click',
  locator,
  fallbacks,
  target: { role: 'button', name },
  description: `Click ${name}`,
});

const logShows = (text: string): Step => ({
  action: 'assert_text',
  locator: "locator('#log')",
  value: text,
  description: `the log says ${text}`,
});

interface Case {
  name: string;
  step: Step;
  clicked: string;
  healedTo?: string;
  change?: boolean;
}

const cases: Case[] = [
  {
    name: "a fallback matching an earlier element than the primary's",
    step: click("getByRole('button', { name: 'Save' })", ["locator('button')"], 'Save'),
    clicked: 'Save',
  },
  {
    name: 'a primary that no longer matches, its fallback does',
    step: click("getByRole('button', { name: 'Keep' })", ["locator('button').nth(1)"], 'Save'),
    clicked: 'Save',
    healedTo: "locator('button').nth(1)",
  },
  {
    name: 'a primary whose element was renamed, an earlier fallback element the recorded name',
    step: click("getByRole('button', { name: 'Publish' })", ["locator('button').first()"], 'Send'),
    clicked: 'Send',
    change: true,
  },
  {
    name: 'an element that appears late, with a fallback',
    step: click("getByRole('button', { name: 'Archive' })", ["getByText('Archive')"], 'Archive'),
    clicked: 'Archive',
  },
  {
    name: 'an element that appears late, no fallback',
    step: click("getByRole('button', { name: 'Archive' })", [], 'Archive'),
    clicked: 'Archive',
  },
];

describe('the element a replayed step uses, read as it is found', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const result = await replay([c.step, logShows(`clicked ${c.clicked}`)]);
    expect(result.error).toBeUndefined();
    expect(result.status).toBe('PASSED');
    expect(result.healed.map((h) => h.to)).toEqual(c.healedTo ? [c.healedTo] : []);
    expect(result.changes.length > 0).toBe(Boolean(c.change));
  });

  it('an assertion whose text arrives after its element passes; one whose text never does fails as assertion', async () => {
    const heading = (name: string): Step => ({
      action: 'assert_visible',
      locator: "locator('#late')",
      target: { role: 'heading', name },
      description: `the heading says ${name}`,
    });
    expect((await replay([heading('Ready to send')])).status).toBe('PASSED');
    const wrong = await replay([heading('Sent')]);
    expect(wrong.status).toBe('FAILED');
    expect(wrong.failureKind).toBe('assertion');
    expect(wrong.error).toContain(`locator('#late') shows "Ready to send", not the expected "Sent"`);
  });

  it('a step whose locators match nothing fails as a missing element', async () => {
    const result = await replay([click("getByRole('button', { name: 'Gone' })", ["locator('#gone')"], 'Gone')]);
    expect(result.status).toBe('FAILED');
    expect(result.failureKind).toBe('element-missing');
    expect(result.error).toContain(`no element matches getByRole('button', { name: 'Gone' }) or locator('#gone')`);
  });
});
