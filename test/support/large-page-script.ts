import { lastPrompt, refOf, tool, type AgentMove } from './agent-script.js';

// The scripted agent buying the 1,200th item of the large page (fixtures/large-page.ts), which compaction collapses
// out of the snapshot: it asks `find` for it, then clicks the button the answer lists. Shared by the e2e test and
// the prompt-size benchmark.

export const largePageGoal = 'Buy item 1200 from the catalogue';
export const largePageExpected = 'The page says Bought item 1200';

/** The agent's requests, in order, for the test's and the bench's checks. */
export function largePageMoves(fixtureUrl: string, path = '/large/bottom'): AgentMove[] {
  return [
    () => tool('navigate', { url: `${fixtureUrl}${path}`, description: 'Open the catalogue' }),
    (r) => {
      // The snapshot shows the first items only: the 1,200th is in the collapsed part.
      if (lastPrompt(r).includes('"Buy item 1200"'))
        throw new Error('scripted agent: item 1200 was expected to be collapsed');
      return tool('find', { text: 'Buy item 1200' });
    },
    (r) => tool('click', { ref: refOf(r, 'button "Buy item 1200"'), description: 'Buy item 1200' }),
    (r) =>
      tool('assert_visible', { ref: refOf(r, /status .*Bought item 1200$/), description: 'The purchase is confirmed' }),
    () => tool('done', { summary: 'Item 1200 bought' }),
  ];
}
