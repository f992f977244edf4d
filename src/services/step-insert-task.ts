import type { Step } from '../domain/steps.js';

/**
 * What the agent is told besides the description: it is adding to a recorded test, not recording one, so it
 * records only what was described (no assertion of its own unless asked) in the page the earlier steps left, and
 * knows what the test does next so it leaves the page in a state that step can continue from.
 */
export function insertionInstructions(scenario: string | null, steps: Step[], at: number): string {
  const next = steps[at];
  return [
    scenario,
    `You are inserting into a recorded test of ${steps.length} steps, before step ${at + 1}: the steps before it have just run, and the page is where they left it.`,
    'Record only what the goal describes (usually one action or one check), then call done.',
    next
      ? `The test continues with: ${next.description}. Do not do that step yourself.`
      : 'It is the last step of the test.',
  ]
    .filter(Boolean)
    .join('\n');
}
