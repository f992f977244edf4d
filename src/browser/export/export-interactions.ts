import type { Step } from '../../domain/steps.js';
import { quote } from '../../domain/locators.js';
import { interactionActions, scrollEndWaitMs, scrollOnceSource, typeDelayMs } from '../steps/interactions.js';

// The Playwright statements of the interaction steps (interactions.ts), doing in a spec what replay does.

const scrollDeltas = { up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0] } as const;

/**
 * One statement (or a few on one line) for an interaction step; undefined for other actions. `el` is the step's
 * element expression with its fallbacks, `elementOf` builds the same for another element (a drop target).
 */
export function interactionStatement(
  step: Step,
  el: string | undefined,
  value: string,
  elementOf: (s: Step) => string | undefined,
): string | undefined {
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
      if (!step.scroll.untilText)
        return `await ${el}.evaluate((e) => e.scrollBy(${x} * ${distance}, ${y} * ${distance}));`;
      // As replay does (interactions.ts scrollContainer): scroll until the text shows; at the container's end give
      // a lazy list scrollEndWaitMs to load more, and fail if it then cannot move. No fixed number of scrolls.
      const moved = `${el}.evaluate(${scrollOnceSource}, { x: ${x}, y: ${y}, pixels: ${step.scroll.pixels ?? null} })`;
      const wanted = `${el}.getByText(${quote(step.scroll.untilText)}).first()`;
      const missing = quote(`"${step.scroll.untilText}" did not appear while scrolling ${step.scroll.direction}`);
      return `for (const end = Date.now() + 15_000; !(await ${wanted}.isVisible()); ) { if (Date.now() > end) throw new Error(${missing}); if (await ${moved}) continue; await ${wanted}.waitFor({ timeout: ${scrollEndWaitMs} }).catch(() => {}); if (!(await ${wanted}.isVisible()) && !(await ${moved})) throw new Error(${missing}); } await ${wanted}.scrollIntoViewIfNeeded();`;
    }
    case 'go_back':
      return 'await page.goBack();';
    case 'reload':
      return 'await page.reload();';
    default:
      return undefined;
  }
}
