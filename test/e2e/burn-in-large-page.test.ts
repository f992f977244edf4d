import { describe, expect, it } from 'vitest';
import { defaultPageTokens } from '../../src/llm/page-view.js';
import { countTokens } from '../../src/llm/token-count.js';
import { lastPrompt, refOf, tool } from '../support/agent-script.js';
import { largePageExpected, largePageGoal, largePageMoves } from '../support/large-page-script.js';
import { exportedSpec, expectSpecPasses } from '../support/playwright-runner.js';
import type { ChatRequest } from '../support/scripted-llm.js';
import { useShopStack } from '../support/shop-stack.js';
import { waitForGeneration } from '../support/worker-context.js';

// Issues 25 and 32: on a large page (1,500 list items, a 300-row table, an iframe, a shadow-DOM widget) the page
// stays within its own budget (`defaultPageTokens`, the system prompt and tools being the cached prefix) because
// compaction collapses the long list; what it collapsed stays within reach: the agent asks `find` for the 1,200th
// item and clicks the button the answer lists (the item, its whole text on its line, with its button's ref). The recorded steps
// replay without the model and export to a spec that passes, and the replay fails once that item is gone.

// The page's part of a request: the snapshot and find's answers, after `Snapshot:`.
const pageTokensOf = (req: ChatRequest) =>
  countTokens(lastPrompt(req).slice(lastPrompt(req).indexOf('\nSnapshot:\n') + '\nSnapshot:\n'.length));

describe('burn-in on a large page', () => {
  const shop = useShopStack();
  let testCaseId: string;

  it('reaches the collapsed 1,200th item through find, the page within its budget at every step, and replays it without the LLM', async () => {
    const first = shop.llm.requests.length;
    const generated = await shop.burnIn('Buy item 1200', largePageGoal, largePageMoves(shop.fixture.url), {
      expectedResult: largePageExpected,
    });
    testCaseId = generated.id;
    expect(generated.generationStatus).toBe('COMPLETED');
    const steps = generated.steps.steps as { action: string; locator?: string; value?: string }[];
    expect(steps.map((s) => s.action)).toEqual(['navigate', 'click', 'assert_visible']);
    expect(steps[0]!.value).toBe('/large/bottom');
    expect(steps[1]!.locator).toBe("getByRole('button', { name: 'Buy item 1200' })");
    expect(steps[2]!.locator).toContain('Bought item 1200');

    const requests = shop.llm.requests.slice(first);
    expect(requests).toHaveLength(5); // navigate, find, click, assert, done: find is a call but not a step
    // The snapshot the agent had before find held the first item and the collapse note, not item 1200; find's
    // answer held it with a ref, which the click used.
    const snapshotOf = (req: ChatRequest) => lastPrompt(req).slice(lastPrompt(req).indexOf('\nSnapshot:\n'));
    const [beforeFind, afterFind] = [snapshotOf(requests[1]!), lastPrompt(requests[2]!)];
    expect(beforeFind).toContain('button "Buy item 1"');
    expect(beforeFind).toMatch(/# \d+ more listitem items \(find shows them by text\)/);
    expect(beforeFind).not.toContain('Buy item 1200');
    expect(afterFind).toMatch(
      /Found "Buy item 1200" \(1 match\):\n- listitem \[ref=e\d+\]: "Item 1200, a product with a short description Buy item 1200"\n {2}- text: Item 1200, a product with a short description\n {2}- button "Buy item 1200" \[ref=e\d+\]/,
    );
    // The find keeps answering in the next snapshot while its item is on the page.
    expect(lastPrompt(requests[3]!)).toContain('Found "Buy item 1200" (1 match):');
    expect(afterFind).toContain('find "Buy item 1200": the matches follow the next snapshot');
    // The iframe's and the shadow root's controls are still in every snapshot of the page, the iframe's with a
    // frame prefix.
    for (const req of requests.slice(1, 4)) {
      expect(refOf(req, 'button "Pay inside iframe"')).toMatch(/^f1e\d+$/);
      expect(refOf(req, 'button "Apply shadow coupon"')).toMatch(/^e\d+$/);
    }
    // System prompt and tools are one prefix, the same at every step, for providers' prompt caching.
    for (const req of requests)
      expect([req.messages[0], req.tools]).toEqual([requests[0]!.messages[0], requests[0]!.tools]);
    // The page (with find's answers) within its budget; the title and URL lines around it are a few tokens more.
    const tokens = requests.map(pageTokensOf);
    expect(Math.max(...tokens), `page tokens per request: ${tokens.join(', ')}`).toBeLessThanOrEqual(
      defaultPageTokens + 30,
    );

    const replay = await shop.replay(testCaseId, { heal: false });
    expect(replay.error).toBeUndefined();
    expect(replay.status).toBe('PASSED');
    expect(replay.requests).toEqual([]);
  }, 120_000);

  it('fails the replay when the bought item is no longer on the page', async () => {
    const replay = await shop.replay(testCaseId, { variant: 'outOfStock', heal: false });
    expect(replay.status).toBe('FAILED');
    expect(replay.error).toContain('Buy item 1200');
    expect(replay.requests).toEqual([]);
  }, 60_000);

  it('exports a Playwright spec that buys the item and runs green', async () => {
    await expectSpecPasses(await exportedSpec(shop.stack, testCaseId));
  }, 120_000);

  it('refuses a ref the agent was never shown, and says when find matches nothing', async () => {
    const goal = 'Buy an item that is not listed';
    const seen: string[] = [];
    const moves = [
      () => tool('navigate', { url: `${shop.fixture.url}/large/bottom`, description: 'Open the catalogue' }),
      // A ref past the snapshot's last alias: it names nothing the agent saw, so nothing is clicked.
      () => tool('click', { ref: 'e999', description: 'Buy a guessed item' }),
      (r: ChatRequest) => (seen.push(lastPrompt(r)), tool('find', { text: 'Buy item 9999' })),
      (r: ChatRequest) => (seen.push(lastPrompt(r)), tool('fail', { reason: 'item 9999 is not listed' })),
    ];
    shop.router.add(goal, moves);
    shop.llm.enqueue(...moves.map(() => shop.router.reply));
    const created = await shop.stack.call('POST', '/v1/test-cases', {
      name: 'Unlisted',
      goal,
      expectedResult: 'bought',
      applicationShortId: shop.appShortId,
    });
    expect(created.status).toBe(200);
    const generated = await waitForGeneration(shop.stack, created.body.testCase.id);
    expect(generated.generationStatus).toBe('FAILED');
    expect(generated.failureReason).toContain('item 9999 is not listed');
    expect(seen[0]).toContain('click Buy a guessed item ✗ there is no element [ref=e999] in the latest snapshot');
    expect(seen[1]).toContain('Nothing on the page contains "Buy item 9999".');
  }, 120_000);
});
