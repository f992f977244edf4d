import { describe, expect, it } from 'vitest';
import type { Step } from '../../src/domain/steps.js';
import type { FailureKind } from '../../src/domain/verdicts.js';
import { useServedPage } from '../support/served-page.js';

// Issue 32, item 6: honest labels. Every step here fails on the very page it was written for (nothing changed),
// so none may be labelled `changed-ui`, and none may be reported as healed: each kind of step × each cause of
// failure, found by its primary locator and again by a fallback after its primary stopped matching (the fallback
// path is where a failed assertion used to be reported as "healed via fallback").

const page = `<!doctype html><title>Orders</title>
<h1>Orders</h1>
<p id="total">Total: 10</p>
<button disabled>Archive</button>
<div style="position:relative"><button>Export</button><div style="position:absolute;inset:0;background:#fff"></div></div>
<label><input type="checkbox" disabled> Notify me</label>
<label for="note">Note</label><input id="note" disabled>
<label for="size">Size</label><select id="size"><option>Small</option><option>Large</option></select>
<div role="listbox" aria-label="Rows" style="height:120px;overflow:auto">${Array.from({ length: 40 }, (_, i) => `<div role="option">Row ${i + 1}</div>`).join('')}</div>`;

const served = useServedPage(page);

interface Cause {
  name: string;
  step: Step;
  kind: FailureKind;
}

/** Each a step that fails on this unchanged page, and the honest kind of its failure. */
const causes: Cause[] = [
  {
    name: 'assert_text: the element shows other text',
    kind: 'assertion',
    step: {
      action: 'assert_text',
      locator: "locator('#total')",
      value: 'Total: 12',
      description: 'total is 12',
      target: { role: 'paragraph', text: 'Total: 10' },
    },
  },
  {
    name: 'assert_visible: text that never showed',
    kind: 'element-missing',
    step: { action: 'assert_visible', locator: "getByText('Order placed')", description: 'placed' },
  },
  {
    name: 'wait_for: text that never showed',
    kind: 'assertion',
    step: { action: 'wait_for', value: 'Order placed', description: 'wait for placed' },
  },
  {
    name: 'click: a disabled button',
    kind: 'assertion',
    step: {
      action: 'click',
      locator: "getByRole('button', { name: 'Archive' })",
      description: 'archive',
      target: { role: 'button', name: 'Archive' },
    },
  },
  {
    name: 'click: a covered button',
    kind: 'assertion',
    step: {
      action: 'click',
      locator: "getByRole('button', { name: 'Export' })",
      description: 'export',
      target: { role: 'button', name: 'Export' },
    },
  },
  {
    name: 'check: a disabled checkbox',
    kind: 'assertion',
    step: {
      action: 'check',
      locator: "getByRole('checkbox', { name: 'Notify me' })",
      description: 'notify',
      target: { role: 'checkbox', name: 'Notify me' },
    },
  },
  {
    name: 'fill: a disabled field',
    kind: 'assertion',
    step: {
      action: 'fill',
      locator: "getByRole('textbox', { name: 'Note' })",
      value: 'hi',
      description: 'note',
      target: { role: 'textbox', name: 'Note' },
    },
  },
  {
    name: 'type: a disabled field',
    kind: 'assertion',
    step: {
      action: 'type',
      locator: "getByRole('textbox', { name: 'Note' })",
      value: 'hi',
      description: 'type note',
      target: { role: 'textbox', name: 'Note' },
    },
  },
  {
    name: 'select: an option not offered',
    kind: 'element-missing',
    step: {
      action: 'select',
      locator: "getByRole('combobox', { name: 'Size' })",
      value: 'Medium',
      description: 'size',
      target: { role: 'combobox', name: 'Size' },
    },
  },
  {
    name: 'scroll: text that never appears in the list',
    kind: 'element-missing',
    step: {
      action: 'scroll',
      locator: "getByRole('listbox', { name: 'Rows' })",
      scroll: { direction: 'down', untilText: 'Row 80' },
      description: 'to row 80',
      target: { role: 'listbox', name: 'Rows' },
    },
  },
  { name: 'go_back: no previous page', kind: 'assertion', step: { action: 'go_back', description: 'back' } },
];

/** The same step whose primary locator no longer matches, found by a recorded fallback (its old primary). */
function byFallback(step: Step): Step | undefined {
  if (!step.locator) return undefined;
  return { ...step, locator: "getByTestId('gone')", fallbacks: [step.locator] };
}

const cells = causes.flatMap((c) => {
  const fallback = byFallback(c.step);
  return [
    [c.name, 'primary', c.kind, c.step] as const,
    ...(fallback ? [[c.name, 'fallback', c.kind, fallback] as const] : []),
  ];
});

const replay = (steps: Step[]) => served.replay(steps, { timeoutMs: 1_500, probeMs: 500 });

// The cells run a few at a time (vitest's maxConcurrency, 5): each replays in a browser context of its own and
// spends most of its time waiting out its step's timeout, which they now wait out together.
describe('a step that fails on a page that did not change', () => {
  it.concurrent.for(cells)(
    '%s (found by its %s locator): FAILED as %s, not changed-ui, nothing healed',
    { timeout: 30_000 },
    async ([, , kind, step], { expect }) => {
      const heading: Step = {
        action: 'assert_visible',
        locator: "getByRole('heading', { name: 'Orders' })",
        description: 'on Orders',
        target: { role: 'heading', name: 'Orders' },
      };
      const result = await replay([heading, step]);
      expect(result.status).toBe('FAILED');
      expect(result.failedStepIndex).toBe(1);
      expect(result.failureKind, result.error).toBe(kind);
      expect(result.healed).toEqual([]);
      // The failed step keeps its recorded locators: nothing a failure "found" is put in front.
      expect(result.steps[1]).toEqual(step);
    },
  );

  it('a step found by a fallback that passes is still reported as healed (the fix drops only failed steps)', async () => {
    const step = byFallback({
      action: 'assert_text',
      locator: "locator('#total')",
      value: 'Total: 10',
      description: 'total is 10',
      target: { role: 'paragraph', text: 'Total: 10' },
    })!;
    const result = await replay([step]);
    expect(result.status).toBe('PASSED');
    expect(result.healed).toEqual([
      { index: 0, from: "getByTestId('gone')", to: "locator('#total')", via: 'fallback' },
    ]);
  }, 30_000);
});
