import type { Locator } from 'playwright-core';
import type { Step } from '../../domain/steps.js';

// A drag's drop target is an element like the step's own: replay finds it by all its locators, heals it, and
// compares it with the recorded one (a lost name, another role), through the same code as the step's element.

/** Finds a step's element the way replay does; `steps[index]` may be replaced by the step with a healed locator. */
export type FindElement = (step: Step, steps: Step[]) => Promise<Locator>;

/** The verified drop target of `steps[index]`, or undefined for a step without one. Heals land in its `dropTarget`. */
export async function findDropTarget(steps: Step[], index: number, find: FindElement): Promise<Locator | undefined> {
  const owner = steps[index]!;
  const drop = owner.dropTarget;
  if (!drop) return undefined;
  const asStep: Step = { action: 'drag', ...drop, description: `${owner.description} (where it is dropped)` };
  const scratch = [...steps];
  scratch[index] = asStep;
  const locator = await find(asStep, scratch);
  const after = scratch[index]!;
  if (after !== asStep && after.locator) {
    steps[index] = {
      ...steps[index]!,
      dropTarget: {
        locator: after.locator,
        ...(after.fallbacks && { fallbacks: after.fallbacks }),
        ...(drop.target && { target: drop.target }),
      },
    };
  }
  return locator;
}
