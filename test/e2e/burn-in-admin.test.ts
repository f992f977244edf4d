import { describe, expect, it } from 'vitest';
import { lastPrompt, refOf, refOfElement, tool, type AgentMove } from '../support/agent-script.js';
import {
  adminCreateExpected,
  adminCreateGoal,
  adminCreateMoves,
  adminSearchExpected,
  adminSearchGoal,
  adminSearchMoves,
} from '../support/admin-script.js';
import { adminSidebarLinks } from '../support/fixtures/admin.js';
import { exportedSpec, expectSpecPasses } from '../support/playwright-runner.js';
import type { ChatRequest } from '../support/scripted-llm.js';
import { useShopStack } from '../support/shop-stack.js';

// Issue 32, "done when": on an admin laid out as Django's (a banner, breadcrumbs and a sidebar of 40 links with a
// filter box before `main`; a form, the messages and a 100-row change list in `main`), the scripted model, acting
// only on refs its prompt shows, records "create a group" and "search for it" with one model call per recorded step
// plus `done`: no `find`. Before, the page's 400 tokens held the banner, the breadcrumbs and the sidebar, and the
// form was cut. The success message, whose text is split by a link, is asserted as an element (its list item),
// and both recordings replay without the model (creating the group again: the create test deletes what it made).

const snapshotOf = (req: ChatRequest) => lastPrompt(req).slice(lastPrompt(req).indexOf('\nSnapshot:\n'));

describe('burn-in on an admin application', () => {
  const shop = useShopStack();
  const created: Record<string, string> = {};

  it('records "create a group" with one model call per step plus done, asserting the split success message as an element', async () => {
    const first = shop.llm.requests.length;
    const moves = adminCreateMoves(shop.fixture.url);
    const generated = await shop.burnIn('Create a group', adminCreateGoal, moves, {
      expectedResult: adminCreateExpected,
    });
    created.create = generated.id;
    expect(generated.generationStatus).toBe('COMPLETED');
    const steps = generated.steps.steps as { action: string; locator?: string; value?: string }[];
    expect(steps.map((s) => s.action)).toEqual([
      'navigate',
      'fill',
      'check',
      'click',
      'assert_visible',
      'click',
      'click',
      'click',
      'assert_visible',
    ]);
    const requests = shop.llm.requests.slice(first, first + moves.length);
    // One request per recorded step, plus done.
    expect(requests).toHaveLength(steps.length + 1);
    expect(requests.some((r) => snapshotOf(r).includes('Found "'))).toBe(false);

    // The form's page fits the page's budget whole: every field and Save are shown (the sidebar too).
    const form = snapshotOf(requests[1]!);
    expect(form).toContain('textbox "Name:"');
    expect(form).toContain('button "Save"');
    expect(form).toContain('checkbox "auth | Can view permission"');
    // The change list after Save does not: main comes first (the message, the search box, the table's first rows,
    // the rest collapsed), then the banner, breadcrumbs and the sidebar, whole while they fit, else one line each.
    const list = snapshotOf(requests[4]!);
    expect(list).toMatch(
      /\nSnapshot:\n(.*\n)?- main \[ref=e1\]:\n {2}- list \[ref=e2\]:\n {4}- listitem \[ref=e3\]:\n {6}- text: The group “\n {6}- link "QA Team" \[ref=e4\]/,
    );
    expect(list).toMatch(/# 7\d more row items \(find shows them by text\)/);
    expect(list.indexOf('textbox "Search"')).toBeLessThan(list.indexOf('navigation "Sidebar"'));
    expect(list).toMatch(
      new RegExp(
        `navigation "Sidebar" \\[ref=e\\d+\\]:(\n {6}- searchbox "Filter navigation items"| # ${adminSidebarLinks} links, 1 searchbox)`,
      ),
    );

    // The message is asserted by its whole text, across the link, and the deletion's message too.
    expect(steps[4]!.locator).toContain('The group “QA Team” was added successfully.');
    expect(steps[8]!.locator).toContain('The group “QA Team” was deleted successfully.');
    expect(shop.fixture.admin.groupNames()).not.toContain('QA Team');
  }, 180_000);

  it('records "search for it" with one model call per step plus done', async () => {
    const first = shop.llm.requests.length;
    const moves = adminSearchMoves(shop.fixture.url);
    const generated = await shop.burnIn('Search groups', adminSearchGoal, moves, {
      expectedResult: adminSearchExpected,
    });
    created.search = generated.id;
    expect(generated.generationStatus).toBe('COMPLETED');
    const steps = generated.steps.steps as { action: string; locator?: string }[];
    expect(steps.map((s) => s.action)).toEqual(['navigate', 'fill', 'click', 'assert_visible']);
    expect(shop.llm.requests.length - first).toBe(steps.length + 1);
    expect(steps[3]!.locator).toContain('Reviewers');
  }, 120_000);

  it("keeps a find's matches in the next snapshots while they are on the page, and drops them once they are gone", async () => {
    const goal = 'Add the group Ops Team, find its success message, then delete the group';
    const prompts: string[] = [];
    const seen =
      (move: AgentMove): AgentMove =>
      (r) => (prompts.push(lastPrompt(r)), move(r));
    const moves: AgentMove[] = [
      () =>
        tool('navigate', { url: `${shop.fixture.url}/admin/auth/group/add/`, description: 'Open the add-group form' }),
      (r) => tool('fill', { ref: refOf(r, 'textbox "Name:"'), value: 'Ops Team', description: 'Name the group' }),
      (r) => tool('click', { ref: refOf(r, 'button "Save"'), description: 'Save the group' }),
      seen(() => tool('find', { text: 'Ops Team” was added' })),
      // The answer: the list item, its whole text on its line, with its ref.
      seen((r) =>
        tool('assert_visible', {
          ref: refOfElement(r, 'listitem', 'Ops Team” was added'),
          description: 'The group was added',
        }),
      ),
      seen((r) => tool('click', { ref: refOf(r, 'link "Ops Team"'), description: 'Open the new group' })),
      seen((r) => tool('click', { ref: refOf(r, 'link "Delete"'), description: 'Delete the group' })),
      (r) => tool('click', { ref: refOf(r, 'button "Yes, I’m sure"'), description: 'Confirm the deletion' }),
      (r) =>
        tool('assert_visible', {
          ref: refOfElement(r, 'listitem', 'was deleted successfully'),
          description: 'The group was deleted',
        }),
      () => tool('done', { summary: 'Ops Team added and deleted' }),
    ];
    const generated = await shop.burnIn('Find a message', goal, moves, {
      expectedResult: 'The admin says Ops Team was added',
    });
    expect(generated.generationStatus).toBe('COMPLETED');
    const [beforeFind, answered, kept, gone] = prompts.map(
      (p) => ({ messages: [{ role: 'user', content: p }] }) as unknown as ChatRequest,
    );
    expect(snapshotOf(beforeFind!)).not.toContain('Found "');
    expect(snapshotOf(answered!)).toMatch(
      /Found "Ops Team” was added" \(1 match\):\n- listitem \[ref=e\d+\]: "The group “Ops Team” was added successfully\."/,
    );
    // After the assertion the message is still on the page: the answer is still there.
    expect(snapshotOf(kept!)).toContain('Found "Ops Team” was added" (1 match):');
    // On the group's change page the message is gone, and so is the answer (not "Nothing on the page contains").
    expect(snapshotOf(gone!)).not.toContain('Found "');
    expect(snapshotOf(gone!)).not.toContain('Nothing on the page contains');
    expect(shop.fixture.admin.groupNames()).not.toContain('Ops Team');
  }, 120_000);

  it('replays both recordings twice without the model, the group created and deleted each time', async () => {
    for (const [name, testCaseId] of Object.entries(created)) {
      for (const round of [1, 2]) {
        const replay = await shop.replay(testCaseId, { heal: false });
        expect(replay.error, `${name}, replay ${round}`).toBeUndefined();
        expect(replay.status).toBe('PASSED');
        expect(replay.requests).toEqual([]);
      }
    }
    expect(shop.fixture.admin.groupNames()).not.toContain('QA Team');
  }, 180_000);

  it('exports the create recording as a Playwright spec that runs green', async () => {
    await expectSpecPasses(await exportedSpec(shop.stack, created.create!));
  }, 120_000);
});
