import type { Step } from '../domain/steps.js';
import { quote } from './locators.js';
import { interactionActions, typeDelayMs } from './interactions.js';

// The Playwright statements of the interaction steps (interactions.ts), doing in a spec what replay does.

const scrollDeltas = { up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0] } as const;

/**
 * One statement (or a few on one line) for an interaction step; undefined for other actions. `el` is the step's
 * element expression with its fallbacks, `elementOf` builds the same for another element (a drop target).
 */
export function interactionStatement(step: Step, el: string | undefined, value: string, elementOf: (s: Step) => string | undefined): string | undefined {
  if (!interactionActions.has(step.action)) return undefined;
  switch (step.action) {
    case 'dblclick':
      return `await ${el}.dblclick();`;
    case 'drag': {
      const drop = step.dropTarget && elementOf({ action: 'drag', description: '', ...step.dropTarget });
      return `await ${el}.dragTo(${drop});`;
    }
    case 'type':
      return `await ${el}.fill(''); await ${el}.pressSequentially(${value}, { delay: ${typeDelayMs} });`;
    case 'scroll': {
      if (!step.scroll) return `await ${el}.scrollIntoViewIfNeeded();`;
      const [x, y] = scrollDeltas[step.scroll.direction];
      const size = x !== 0 ? 'e.clientWidth' : 'e.clientHeight';
      const distance = step.scroll.pixels ?? `${size} * 0.8`;
      const scroll = `await ${el}.evaluate((e) => e.scrollBy(${x} * ${distance}, ${y} * ${distance}));`;
      if (!step.scroll.untilText) return scroll;
      const wanted = `${el}.getByText(${quote(step.scroll.untilText)}).first()`;
      // Scrolls until the text shows, as replay does: a lazy list loads its rows as it scrolls.
      return `await expect(async () => { if (!(await ${wanted}.isVisible())) ${scroll} await expect(${wanted}).toBeVisible({ timeout: 250 }); }).toPass({ timeout: 15_000 });`;
    }
    case 'go_back':
      return 'await page.goBack();';
    case 'reload':
      return 'await page.reload();';
    default:
      return undefined;
  }
}
