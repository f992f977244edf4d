import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupCombinations, groupMatrix, historyLengths, type GroupRow } from '../../bench/burn-in-prompt-groups.js';
import { startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';
import { useAgentRig } from '../support/agent-rig.js';

// Issue 25, item 4: every combination of the agent's optional tool groups (email, http) fits 1,500 prompt tokens a
// step, tools included, on every page of the bench: the fixture shop's four pages and the large page (1,500 list
// items, a 300-row table, an iframe, a shadow-DOM widget), with no history and after 25 steps. The prompts are the
// agent's own (`stepPrompt`) on the pages in Chromium; tokens are o200k over the prompt as the model reads it.

const pages = ['shop login', 'shop products', 'shop cart', 'shop checkout', 'large page, widgets at the top', 'large page, widgets at the bottom'];
const cases = pages.flatMap((page) => groupCombinations.flatMap((groups) => historyLengths.map((history) => ({ page, groups: groups.join('+') || 'none', history }))));

describe('burn-in prompt size for every combination of tool groups', () => {
  const rig = useAgentRig();
  let fixture: FixtureApps;
  let rows: GroupRow[] = [];
  beforeAll(async () => {
    fixture = await startFixtureApps();
    rows = await groupMatrix(rig.pool, fixture.url);
  }, 120_000);
  afterAll(async () => fixture?.stop());

  const rowOf = (c: (typeof cases)[number]) => {
    const row = rows.find((r) => r.page === c.page && r.groups === c.groups && r.history === c.history);
    if (!row) throw new Error(`no measurement for ${JSON.stringify(c)}`);
    return row;
  };

  it.each(cases)('$page, tools $groups, $history steps done: ≤ 1,500 tokens with the page still shown', (c) => {
    const { parts } = rowOf(c);
    expect(parts.total, JSON.stringify(parts)).toBeLessThanOrEqual(1_500);
    // The page keeps a real share: the budget took it from the page, not the page away.
    expect(parts.snapshot).toBeGreaterThanOrEqual(c.page.startsWith('large') ? 130 : 80);
  });

  it('offers more tools at a cost the page pays, not the budget: with both groups the tools are the most, the total still within 1,500', () => {
    const tools = (groups: string) => rowOf({ page: 'shop login', groups, history: 0 }).parts.tools;
    expect(tools('email+http')).toBeGreaterThan(Math.max(tools('email'), tools('http')));
    expect(tools('email+http')).toBeLessThan(1_000);
    // On the large page, with no history, the iframe's and the shadow root's controls show whatever the tools.
    for (const page of pages.filter((p) => p.startsWith('large'))) {
      for (const groups of groupCombinations) expect(rowOf({ page, groups: groups.join('+') || 'none', history: 0 }).widgets, `${page}, ${groups.join('+')}`).toBe(true);
    }
  });
});
