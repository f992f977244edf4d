import { describe, expect, it } from 'vitest';
import { failureScreenshotMaxHeight } from '../../src/browser/quality/failure-screenshot.js';
import { defaultPageTokens } from '../../src/llm/page-view.js';
import { countTokens } from '../../src/llm/token-count.js';
import { lastPrompt, refOf, tool, type AgentMove } from '../support/agent-script.js';
import type { ChatRequest } from '../support/scripted-llm.js';
import { useShopStack } from '../support/shop-stack.js';

// Issues 25 and 32: a heal reads the page as a burn-in step does, through short ref aliases within the page's own
// budget (src/llm/page-view.ts `defaultPageTokens`). On the large page (1,500 list items, a 300-row table, an iframe, a shadow-DOM
// widget) whose buttons were renamed from "Buy item N" to "Purchase item N", the model's alias maps back to the
// very element it named (the wrong item would buy the wrong thing and fail the assertion), the healed run passes,
// and the saved heal replays with no model call. An alias the heal never showed is refused, never guessed; a pick of
// another item is acted on as that item, and the assertion after it fails the run. A failed run keeps a screenshot
// of the page around where it stopped (src/browser/quality/failure-screenshot.ts).

const goal = 'Buy the second item of the catalogue';
// The page's part of the heal's request, after `Snapshot:`.
const pageTokensOf = (req: ChatRequest) =>
  countTokens(lastPrompt(req).slice(lastPrompt(req).indexOf('\nSnapshot:\n') + '\nSnapshot:\n'.length));

describe('a heal on the large page', () => {
  const shop = useShopStack();
  let testCaseId: string;

  const run = (variant: 'original' | 'renamed') => shop.replay(testCaseId, { variant, heal: true });

  it('burns in a purchase on the large page', async () => {
    const moves: AgentMove[] = [
      () => tool('navigate', { url: `${shop.fixture.url}/large/bottom`, description: 'Open the catalogue' }),
      (r) => tool('click', { ref: refOf(r, 'button "Buy item 2"'), description: 'Buy item 2' }),
      (r) =>
        tool('assert_visible', { ref: refOf(r, /status .*Bought item 2$/), description: 'The purchase is confirmed' }),
      () => tool('done', { summary: 'Item 2 bought' }),
    ];
    // Four observations of the 39,000 px page and a verifying replay: past a minute on a busy 2-core machine.
    const generated = await shop.burnIn(
      'Buy item 2',
      goal,
      moves,
      { expectedResult: 'The page says Bought item 2' },
      150_000,
    );
    testCaseId = generated.id;
    expect(generated.steps.steps.map((s: { action: string; locator?: string }) => [s.action, s.locator ?? ''])).toEqual(
      [
        ['navigate', ''],
        ['click', "getByRole('button', { name: 'Buy item 2', exact: true })"],
        ['assert_visible', "getByText('Bought item 2')"],
      ],
    );
    await shop.stack.call('PATCH', '/v1/project/settings', { healPolicy: 'auto' });
  }, 180_000);

  it('refuses an alias the heal prompt never showed: the run fails and nothing is saved', async () => {
    shop.llm.enqueue(() => tool('select_element', { ref: 'e9999', reason: 'A guessed purchase button' }));
    const result = await run('renamed');
    expect(result.status).toBe('FAILED');
    expect(result.requests).toHaveLength(1);
    expect(result.error).toContain('the model named an element it was not shown (e9999)');
    expect(result.healed).toEqual([]);
    // The failure keeps its screenshot: a band of the 39,000 px page around the viewport, not the whole page (whose
    // 7 MB PNG timed out and left the failure without one).
    const png = await shop.stack.activityDeps.blobs.get(result.screenshotKey!);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1280, failureScreenshotMaxHeight]);
    expect((await shop.stack.call('GET', `/v1/test-cases/${testCaseId}`)).body.steps.version).toBe(1);
  }, 120_000);

  it('a pick of another item maps back to that item: it buys the wrong thing, the assertion fails, nothing is saved', async () => {
    shop.llm.enqueue(
      (r) =>
        tool('select_element', {
          ref: refOf(r, 'button "Purchase item 3"'),
          reason: 'A purchase button of the catalogue',
        }),
      // The assertion's own heal: its expected text cannot change.
      () => tool('not_found', { reason: 'Bought item 2 is not shown' }),
    );
    const result = await run('renamed');
    expect(result.status).toBe('FAILED');
    expect(result.requests).toHaveLength(2);
    expect(result.failedStepIndex).toBe(2);
    expect(result.error).toMatch(/^step 3 \(assert_visible\)/);
    expect(result.error).toContain('the page showed: "Bought item 3');
    expect((await shop.stack.call('GET', `/v1/test-cases/${testCaseId}`)).body.steps.version).toBe(1);
  }, 120_000);

  it('picks the renamed button through its alias, the page within its budget; the healed run buys that item and the saved heal replays without the model', async () => {
    let picked = '';
    shop.llm.enqueue((r) =>
      tool('select_element', {
        ref: (picked = refOf(r, 'button "Purchase item 2"')),
        reason: "The second item's buy button, renamed",
      }),
    );
    const healed = await run('renamed');
    expect(healed.error).toBeUndefined();
    expect(healed.status).toBe('PASSED');
    expect(healed.healed.map((h) => [h.index, h.via, h.to])).toEqual([
      [1, 'llm', "getByRole('button', { name: 'Purchase item 2', exact: true })"],
    ]);

    // The heal's prompt: short aliases (the iframe's with its frame prefix), the long list collapsed, within budget.
    const [request] = healed.requests;
    const prompt = lastPrompt(request!);
    expect(picked).toMatch(/^e\d{1,3}$/);
    expect(refOf(request!, 'button "Pay inside iframe"')).toMatch(/^f1e\d{1,2}$/);
    expect(prompt).toMatch(/# \d+ more listitem items \(find shows them by text\)/);
    expect(prompt).not.toMatch(/\[ref=f\d+e\d{3,}\]/);
    expect(pageTokensOf(request!), prompt).toBeLessThanOrEqual(defaultPageTokens);

    const saved = (await shop.stack.call('GET', `/v1/test-cases/${testCaseId}`)).body.steps;
    expect(saved.steps[1].locator).toBe("getByRole('button', { name: 'Purchase item 2', exact: true })");
    const again = await run('renamed');
    expect(again.status).toBe('PASSED');
    expect(again.requests).toHaveLength(0);
    const original = await run('original');
    expect(original.status).toBe('PASSED');
    expect(original.requests).toHaveLength(0);
  }, 180_000);
});
