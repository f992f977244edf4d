import type { Frame, Locator, Page } from 'playwright-core';
import type { Step } from '../../domain/steps.js';
import { resolveLocator } from '../locators.js';
import { pageFunction } from '../page-function.js';
import { prepareInboxValues } from './email-steps.js';
import { httpStepTexts } from './http-step.js';
import { MissingConfigError, StepFailedError, firstLine } from './errors.js';
import type { ActionOptions, PerformContext } from './kind.js';
import { kindOfAction } from './registry.js';
import { inSpan, spanAttr } from '../../tracing.js';
import { secondsSince, stepDuration } from '../../metrics.js';
import { withTimeout } from '../../timeouts.js';

export { ElementNotFoundError, MissingConfigError, StepFailedError, firstLine } from './errors.js';
export type { ActionOptions } from './kind.js';

/** The actions whose step must carry a locator when a person edits it (step edits refuse one without). */
export const actionsWithElement = new Set<Step['action']>([
  'click',
  'fill',
  'select',
  'hover',
  'check',
  'uncheck',
  'upload',
  'assert_visible',
]);

/** Whether the step's locator must find an element (press/wait_for/assert_text only may have one). */
export function locatesElement(step: Step): boolean {
  return Boolean(step.locator) && kindOfAction(step.action)?.element !== undefined;
}

/** Every locator of a step, primary first. */
export function stepLocators(step: Step): string[] {
  return [step.locator, ...(step.fallbacks ?? [])].filter((e): e is string => Boolean(e));
}

/**
 * Waits up to `waitMs` for any of the expressions to match, all of them at once (`locator.or`), so a step whose
 * primary is gone but whose fallback matches costs nothing extra, and a gone element costs one wait, not one per
 * locator. The first expression (in the step's order) that matches wins; undefined when none did in time.
 */
export async function probeElement(
  page: Page,
  expressions: string[],
  waitMs: number,
): Promise<{ locator: Locator; expression: string } | undefined> {
  if (expressions.length === 0) return undefined;
  const locators = expressions.map((e) => resolveLocator(page, e));
  const anyOf = locators.slice(1).reduce((all, l) => all.or(l), locators[0]!);
  try {
    await anyOf.first().waitFor({ state: 'attached', timeout: Math.max(1, waitMs) });
  } catch {
    return undefined;
  }
  // With one locator, what the wait found is its match: counting it again is a round trip for nothing.
  if (locators.length === 1) return { locator: locators[0]!, expression: expressions[0]! };
  return firstMatching(locators, expressions);
}

/** The first locator (in the step's order) that matches now, one count each until one does. */
export async function firstMatching(
  locators: Locator[],
  expressions: string[],
): Promise<{ locator: Locator; expression: string } | undefined> {
  for (const [i, locator] of locators.entries()) {
    if ((await locator.count().catch(() => 0)) > 0) return { locator, expression: expressions[i]! };
  }
  // It matched and went away between the wait and the count (a re-render): a caller probes again or heals.
  return undefined;
}

/** Performs one step's action on an already located element (or the page, for page-level actions). */
export async function performAction(
  page: Page,
  step: Step,
  locator: Locator | undefined,
  opts: ActionOptions,
  elements: { drop?: Locator } = {},
): Promise<void> {
  await prepareInboxValues(step, opts);
  const missing = opts.values.missing([step.value ?? '', ...httpStepTexts(step)].join(' '));
  if (missing.length > 0)
    throw new MissingConfigError(
      `the step uses {{${missing.join('}}, {{')}}}, which this project has no config for (step: ${step.description})`,
    );
  const value = step.value === undefined ? undefined : opts.values.resolve(step.value);
  const timeout = opts.timeoutMs;
  const kind = kindOfAction(step.action);
  // A step this version cannot perform must fail, never pass by doing nothing.
  if (!kind) throw new StepFailedError(`${step.action} is not a step this version of Proctor can replay`);
  const ctx: PerformContext = {
    page,
    step,
    locator,
    drop: elements.drop,
    value,
    opts,
    timeout,
    element: () => {
      if (!locator) throw new StepFailedError(`${step.action} needs an element`);
      return locator;
    },
    text: () => {
      if (value === undefined) throw new StepFailedError(`${step.action} needs a value`);
      return value;
    },
  };
  const started = performance.now();
  let outcome: 'ok' | 'failed' = 'failed';
  try {
    await kind.perform(ctx);
    outcome = 'ok';
  } catch (err) {
    if (err instanceof StepFailedError) throw err;
    throw new StepFailedError(`${step.action} failed: ${firstLine(err)} (step: ${step.description})`, { cause: err });
  } finally {
    // The one place replay and burn-in both perform a step: its time, without locating the element.
    stepDuration.observe({ action: step.action, outcome }, secondsSince(started));
  }
}

/** One step performed (burn-in and replay), finding its element and any heal included, in a span of its own. */
export function inStepSpan<T>(step: Step, index: number, fn: () => Promise<T>): Promise<T> {
  return inSpan(`step ${step.action}`, { [spanAttr.stepAction]: step.action, 'proctor.step.index': index }, fn);
}

// A frame then a task; a page that paints no frames (hidden, or busy) still ends its turn by the second timer.
const pageTurnInPage = pageFunction<() => Promise<void>>(
  '() => new Promise((resolve) => { requestAnimationFrame(() => setTimeout(resolve, 0)); setTimeout(resolve, 100); })',
);

/** One turn of the page's event loop; false if the page went away meanwhile (it navigated: a change). */
async function pageTurn(page: Page, deadline: number): Promise<boolean> {
  const turn = page.evaluate(pageTurnInPage).then(
    () => true,
    () => false,
  );
  // Out of time: the deadline ends the settling anyway.
  return withTimeout(turn, Math.max(1, deadline - Date.now()), () => new Error('out of time')).catch(() => true);
}

/**
 * Watches the page's network and navigations from before an action until it has been quiet a moment, so the
 * agent looks at the page an action produced (a fetch followed by a scripted navigation, say), not the one before.
 * Bounded: a page that never goes quiet (polling, websockets) costs at most `maxMs`.
 */
export function watchActivity(page: Page): { settle(maxMs?: number, quietMs?: number): Promise<void> } {
  let pending = 0;
  let lastChange = Date.now();
  const started = () => {
    pending++;
    lastChange = Date.now();
  };
  const finished = () => {
    pending = Math.max(0, pending - 1);
    lastChange = Date.now();
  };
  const navigated = (frame: Frame) => {
    if (frame === page.mainFrame()) lastChange = Date.now();
  };
  page.on('request', started);
  page.on('requestfinished', finished);
  page.on('requestfailed', finished);
  page.on('framenavigated', navigated);
  return {
    async settle(maxMs = 3_000, quietMs = 150) {
      const deadline = Date.now() + maxMs;
      // Quiet counts from the end of the action: time the action spent waiting for its element to become
      // actionable is not quiet after it, and a request the page starts a moment later must still be waited for.
      lastChange = Math.max(lastChange, Date.now());
      try {
        for (;;) {
          while (Date.now() < deadline && (pending > 0 || Date.now() - lastChange < quietMs)) {
            await new Promise((r) => setTimeout(r, 25));
          }
          if (Date.now() >= deadline) break;
          // Quiet as seen from here may be news still on its way: after one turn of the page's own loop (a frame
          // and a task) what it had received has run, and a request it started is known, since the page reports
          // it before it answers. Quiet again after that is quiet.
          const before = lastChange;
          if (!(await pageTurn(page, deadline))) lastChange = Date.now();
          if (pending === 0 && lastChange === before) break;
        }
        await page
          .waitForLoadState('domcontentloaded', { timeout: Math.max(1, deadline - Date.now()) })
          .catch(() => {});
      } finally {
        page.off('request', started);
        page.off('requestfinished', finished);
        page.off('requestfailed', finished);
        page.off('framenavigated', navigated);
      }
    },
  };
}
