import type { Page } from 'playwright-core';
import { parseStepArgs, type StepKind } from '../../src/browser/steps/kind.js';
import { stepKinds } from '../../src/browser/steps/registry.js';
import type { Step } from '../../src/domain/steps.js';

// A step of every kind of the step registry, recorded from the kind's example call in real Chromium (refs from the
// page's own snapshot), as burn-in records one: the registry's test checks each, the file round trip exports them.

export const registryHtml = `<main>
  <h1>Registry</h1>
  <label>Name <input></label>
  <label>Colour <select><option>Red</option><option>Blue</option></select></label>
  <label><input type="checkbox" checked> Terms</label>
  <button>Save</button>
  <ul style="height: 40px; overflow: auto"><li>Row 1</li><li>Row 2</li><li>Row 40</li></ul>
</main>`;

/** The example's refs name a role: the ref of the first element of that role in the page's snapshot. */
export async function withRefs(page: Page, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  await page.setContent(registryHtml);
  const snapshot = await page.ariaSnapshot({ mode: 'ai' });
  const refOf = (role: string) => {
    const m = new RegExp(`- ${role}\\b[^\\n]*?\\[ref=([^\\]]+)\\]`).exec(snapshot);
    if (!m) throw new Error(`no ${role} in the fixture page:\n${snapshot}`);
    return m[1]!;
  };
  return Object.fromEntries(
    Object.entries(args).map(([k, v]) => [
      k,
      (k === 'ref' || k === 'to') && typeof v === 'string' && /^[a-z]+$/.test(v) ? refOf(v) : v,
    ]),
  );
}

/** The step a kind records from its example call, described as `Do <tool>`. */
export async function recordExample(page: Page, kind: StepKind): Promise<Step> {
  const args = await withRefs(page, kind.example as Record<string, unknown>);
  return kind.toStep(parseStepArgs(kind, args), {
    page,
    description: `Do ${kind.tool}`,
    baseUrl: 'https://shop.test/',
    timeoutMs: 5_000,
  });
}

/** One recorded step of every kind, in the registry's order. */
export async function recordEveryKind(page: Page): Promise<Step[]> {
  const steps: Step[] = [];
  for (const kind of stepKinds) steps.push(await recordExample(page, kind));
  return steps;
}
