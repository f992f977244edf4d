import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupCombinations, groupMatrix, historyLengths, type GroupRow } from '../../bench/burn-in-prompt-groups.js';
import { startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';
import { useAgentRig } from '../support/agent-rig.js';
import { defaultPageTokens } from '../../src/llm/page-view.js';
import { historyTokens } from '../../src/llm/agent-prompt.js';

// Issues 25 and 32: the page has a budget of its own. The system prompt and the tools are the stable prefix
// providers cache, so the tools a goal is offered (email, http) and the history no longer take tokens from the page:
// on every page of the bench (the fixture shop's four pages and the large page: 1,500 list items, a 300-row table,
// an iframe, a shadow-DOM widget), with every combination of tool groups, with no history and after 25 steps, the
// page is shown the same and within `defaultPageTokens`, and the history within `historyTokens`. The prompts are the
// agent's own (`stepPrompt`) on the pages in Chromium; tokens are o200k over the prompt as the model reads it.

const pages = [
  'shop login',
  'shop products',
  'shop cart',
  'shop checkout',
  'large page, widgets at the top',
  'large page, widgets at the bottom',
];
const cases = pages.flatMap((page) =>
  groupCombinations.flatMap((groups) =>
    historyLengths.map((history) => ({ page, groups: groups.join('+') || 'none', history })),
  ),
);

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

  it.each(cases)(
    '$page, tools $groups, $history steps done: the page as with no tools and no history, within its budget',
    (c) => {
      const { parts } = rowOf(c);
      const alone = rowOf({ ...c, groups: 'none', history: 0 });
      expect(parts.snapshot, JSON.stringify(parts)).toBe(alone.parts.snapshot);
      expect(parts.snapshot).toBeLessThanOrEqual(defaultPageTokens);
      // The task and the history together: the history folds past its share.
      expect(parts.task).toBeLessThanOrEqual(historyTokens + 150);
    },
  );

  it("offers more tools in the cached prefix, not at the page's cost: with both groups the tools are the most; the large page's widgets always show", () => {
    const tools = (groups: string) => rowOf({ page: 'shop login', groups, history: 0 }).parts.tools;
    expect(tools('email+http')).toBeGreaterThan(Math.max(tools('email'), tools('http')));
    expect(tools('email+http')).toBeLessThan(1_000);
    // On the large page the iframe's and the shadow root's controls show whatever the tools and the history.
    for (const page of pages.filter((p) => p.startsWith('large'))) {
      for (const groups of groupCombinations) {
        for (const history of historyLengths)
          expect(
            rowOf({ page, groups: groups.join('+') || 'none', history }).widgets,
            `${page}, ${groups.join('+')}, ${history}`,
          ).toBe(true);
      }
    }
  });
});
