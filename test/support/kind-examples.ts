import type { Page } from 'playwright-core';
import { parseStepArgs, type StepKind } from '../../src/browser/steps/kind.js';
import { stepKinds } from '../../src/browser/steps/registry.js';
import type { Step } from '../../src/domain/steps.js';
import { RefAliases } from '../../src/browser/record/snapshot-refs.js';
import { withRealRefs } from '../../src/llm/agent-prompt.js';

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

// Aliases start past the page's own refs, as on a real page where they never line up: an argument the agent did
// not map back would name no element and fail the call, as a mask recorded on the wrong element once did.
const aliasOffset = 50;

// ARIA roles an example may name an element by (src/browser/steps/kind.ts: `example`).
const roles = new Set(
  'button checkbox combobox heading link list listitem main option radio row status textbox'.split(' '),
);
export const isRole = (v: unknown) => typeof v === 'string' && roles.has(v);

/**
 * The example's refs name a role: the ref of the first element of that role in the page's snapshot, as the agent
 * shows it (an alias) and maps it back (withRealRefs), in every argument the kind marks as a ref.
 */
export async function withRefs(
  page: Page,
  tool: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  await page.setContent(registryHtml);
  const aliases = new RefAliases();
  aliases.apply(Array.from({ length: aliasOffset }, (_, i) => `[ref=pad${i}]`).join(' '));
  const snapshot = aliases.apply(await page.ariaSnapshot({ mode: 'ai' }));
  const refOf = (role: string) => {
    const m = new RegExp(`- ${role}\\b[^\\n]*?\\[ref=([^\\]]+)\\]`).exec(snapshot);
    if (!m) throw new Error(`no ${role} in the fixture page:\n${snapshot}`);
    return m[1]!;
  };
  const named = (v: unknown): unknown =>
    typeof v === 'string' && isRole(v) ? refOf(v) : Array.isArray(v) ? v.map(named) : v;
  const shown = Object.fromEntries(Object.entries(args).map(([k, v]) => [k, named(v)]));
  return withRealRefs(tool, shown, aliases);
}

/** The step a kind records from its example call, described as `Do <tool>`. */
export async function recordExample(page: Page, kind: StepKind): Promise<Step> {
  const args = await withRefs(page, kind.tool, kind.example as Record<string, unknown>);
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
