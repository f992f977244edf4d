// The order page the visual tests burn in (test/e2e/visual-checks.test.ts, test/e2e/visual-review.test.ts): a
// heading, a card with the total, and a clock that changes every 50 ms, which the screenshot check masks. The
// scripted model's checks of it are here one by one: each test orders them as it needs.
import { expect } from 'vitest';
import { refOf, tool, type AgentMove } from './agent-script.js';
import type { ScriptedLlm } from './scripted-llm.js';
import { waitForGeneration, type Stack } from './worker-context.js';

/** A status line whose text changes every 50 ms: no two screenshots of it agree unless it is masked. */
export const runningClock = `<p role="status" id="clock"></p>
<script>
const clock = document.getElementById('clock');
const tick = () => (clock.textContent = 'Now ' + new Date().toISOString().slice(11, 23));
tick();
setInterval(tick, 50);
</script>`;

/** What the scripted model checks on the order page (the total is the one the page shows when all is well). */
export const orderChecks = {
  heading: () => tool('assert_text', { text: 'Order summary', description: 'The order page is open' }),
  total: (r) =>
    tool('assert_text', {
      text: 'Total: 24.00 EUR',
      ref: refOf(r, /paragraph \[ref=[^\]]+\]: "?Total/),
      description: 'The total is shown',
    }),
  /** A screenshot check with the clock masked. */
  looks: (r) =>
    tool('assert_screenshot', { masks: [refOf(r, /status \[ref=/)], description: 'The order page looks right' }),
  done: () => tool('done', { summary: 'The order page shows its total and looks right' }),
} satisfies Record<string, AgentMove>;

/**
 * Burns in the test case "Order page" on the application with the scripted `moves` and returns it as generated
 * (its burn-in must not fail).
 */
export async function burnInOrderPage(
  stack: Stack,
  llm: ScriptedLlm,
  applicationShortId: string,
  moves: AgentMove[],
): Promise<any> {
  llm.enqueue(...moves);
  const created = await stack.call('POST', '/v1/test-cases', {
    name: 'Order page',
    goal: 'Check the order page shows its total and looks right',
    applicationShortId,
  });
  const generated = await waitForGeneration(stack, created.body.testCase.id);
  expect(generated.failureReason).toBeNull();
  return generated;
}
