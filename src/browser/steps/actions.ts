import type { Frame, Locator, Page } from 'playwright-core';
import type { Step } from '../../domain/steps.js';
import type { FailureKind } from '../../domain/verdicts.js';
import { interactionActions, interactionElementActions, performInteraction } from './interactions.js';
import { resolveLocator } from '../locators.js';
import { emailActions, performEmailStep, prepareInboxValues } from './email-steps.js';
import type { InboxAccess } from '../../domain/inbox.js';
import { generatedFile } from './files.js';
import { showsText } from '../../domain/target-check.js';
import type { RunValues } from '../../domain/run-values.js';
import { httpStepTexts, performHttpStep } from './http-step.js';
import { pageFunction } from '../page-function.js';

/** The labels and values of a select's options. */
const selectOptions = pageFunction<(el: Element) => string[]>(
  '(el) => Array.from(el.options ?? [], (o) => [o.label, o.value]).flat()',
);

/** A step that could not do what it says; the message is for the user reading the run. */
export class StepFailedError extends Error {
  override name = 'StepFailedError';
  /** Why, when the step knows better than its action kind says (replay classifies the rest). */
  readonly kind?: FailureKind;
}

/** The step's element is not on the page (by its locator or any fallback): the case self-healing handles. */
export class ElementNotFoundError extends StepFailedError {
  override name = 'ElementNotFoundError';
}

/** The step references a config the project does not have: the test, not the application, must change. */
export class MissingConfigError extends StepFailedError {
  override name = 'MissingConfigError';
  override readonly kind = 'test-definition' as const;
}

export interface ActionOptions {
  /** Relative navigation targets resolve against it (the environment's URL). */
  baseUrl: string;
  /** What `{{NAME}}` references resolve to when the step runs: configs, TOTP codes, run variables. */
  values: RunValues;
  timeoutMs: number;
  /** Proctor's inbox, for `{{INBOX}}` and the email steps (absent: no inbox domain configured). */
  inbox?: InboxAccess;
  /** The project's uploaded files by name, for `upload` steps with `projectFile` (undefined: no such file). */
  projectFiles?: (name: string) => Promise<{ name: string; mimeType: string; buffer: Buffer } | undefined>;
}

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

/** The actions whose step carries a locator that must find an element (press/wait_for/assert_text only may). */
export function locatesElement(step: Step): boolean {
  return (
    Boolean(step.locator) &&
    (actionsWithElement.has(step.action) ||
      interactionElementActions.has(step.action) ||
      step.action === 'press' ||
      step.action === 'wait_for' ||
      step.action === 'assert_text')
  );
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
  for (const [i, locator] of locators.entries()) {
    if ((await locator.count().catch(() => 0)) > 0) return { locator, expression: expressions[i]! };
  }
  // It matched and went away between the wait and the count (a re-render): a caller probes again or heals.
  return undefined;
}

export function resolveUrl(value: string, baseUrl: string): string {
  return new URL(value, baseUrl).toString();
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
  const need = (): Locator => {
    if (!locator) throw new StepFailedError(`${step.action} needs an element`);
    return locator;
  };
  const needValue = (): string => {
    if (value === undefined) throw new StepFailedError(`${step.action} needs a value`);
    return value;
  };
  try {
    if (step.action === 'http_request') {
      await performHttpStep(page, step, opts);
      return;
    }
    switch (step.action) {
      case 'navigate':
        await page.goto(resolveUrl(needValue(), opts.baseUrl), {
          waitUntil: 'domcontentloaded',
          timeout: Math.max(timeout, 15_000),
        });
        return;
      case 'click':
        await need().click({ timeout });
        return;
      case 'fill':
        await need().fill(needValue(), { timeout });
        return;
      case 'select': {
        const option = needValue();
        await need()
          .selectOption({ label: option }, { timeout })
          .catch(() => need().selectOption(option, { timeout }))
          .catch(async (err: unknown) => {
            // Playwright only says it timed out: say whether the option is there at all (its absence is the failure).
            const offered = await need()
              .evaluate(selectOptions)
              .catch(() => undefined);
            if (offered && !offered.includes(option))
              throw new StepFailedError(
                `the option "${option}" is not offered (${offered.slice(0, 10).join(', ') || 'no options'}) (step: ${step.description})`,
              );
            throw err;
          });
        return;
      }
      case 'press':
        if (locator) await locator.press(needValue(), { timeout });
        else await page.keyboard.press(needValue());
        return;
      case 'hover':
        await need().hover({ timeout });
        return;
      case 'check':
        await need().check({ timeout });
        return;
      case 'uncheck':
        await need().uncheck({ timeout });
        return;
      case 'upload': {
        // A valid file of the recorded name's type (a PNG that decodes, a PDF a reader opens), not text in disguise.
        const file = step.projectFile ? await opts.projectFiles?.(needValue()) : generatedFile(value ?? 'upload.txt');
        if (!file)
          throw new MissingConfigError(
            `the step uploads the project file "${value}", which this project does not have (POST /v1/files)`,
          );
        await need().setInputFiles(file, { timeout });
        return;
      }
      case 'wait_for':
        if (locator) await locator.first().waitFor({ state: 'visible', timeout });
        else {
          // Not getByText, which matches any case and any part of a word: "Saved" is not shown by "Unsaved".
          const expected = needValue();
          await poll(timeout, async () => showsText(await page.locator('body').innerText(), expected)).catch(() => {
            throw new StepFailedError(`expected the text "${expected}" to appear (${step.description})`);
          });
        }
        return;
      case 'assert_visible':
        await need()
          .first()
          .waitFor({ state: 'visible', timeout })
          .catch(() => {
            throw new StepFailedError(`expected ${step.locator} to be visible (${step.description})`);
          });
        return;
      case 'assert_text': {
        const expected = needValue();
        const scope = locator ?? page.locator('body');
        // Whole words, case and digits counting: "Total: 10" is not shown by "Total: 100".
        await poll(timeout, async () => showsText(await scope.first().innerText(), expected)).catch(() => {
          throw new StepFailedError(`expected the text "${expected}" on the page (${step.description})`);
        });
        return;
      }
      case 'assert_url': {
        const expected = needValue();
        await poll(timeout, async () => page.url().includes(expected)).catch(() => {
          throw new StepFailedError(`expected the URL to contain "${expected}" but it is ${page.url()}`);
        });
        return;
      }
      default:
        if (emailActions.has(step.action)) return await performEmailStep(page, step, value, opts);
        if (interactionActions.has(step.action))
          return await performInteraction(page, step, { locator, drop: elements.drop, value, timeoutMs: timeout });
        // A step this version cannot perform must fail, never pass by doing nothing.
        throw new StepFailedError(`${step.action} is not a step this version of Proctor can replay`);
    }
  } catch (err) {
    if (err instanceof StepFailedError) throw err;
    throw new StepFailedError(`${step.action} failed: ${firstLine(err)} (step: ${step.description})`, { cause: err });
  }
}

export function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
}

async function poll(timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
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
      try {
        while (Date.now() < deadline && (pending > 0 || Date.now() - lastChange < quietMs)) {
          await new Promise((r) => setTimeout(r, 25));
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
