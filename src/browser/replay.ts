import type { Page } from 'playwright-core';
import type { Step } from '../domain/steps.js';
import { actionsWithElement, ElementNotFoundError, firstLine, locateElement, performAction, type ActionOptions } from './actions.js';
import { resolveLocator } from './locators.js';

/** Finds the element of a step whose locator no longer matches; undefined when it cannot. */
export type Healer = (page: Page, step: Step, error: ElementNotFoundError) => Promise<{ locator: string; fallbacks: string[] } | undefined>;

export interface ReplayOptions extends ActionOptions {
  /** Where the test starts: the environment URL, or where a resume-from dependency ended. */
  startUrl: string;
  heal?: Healer;
  onStep?: (index: number, step: Step) => void | Promise<void>;
}

export interface HealedStep {
  index: number;
  from: string | undefined;
  to: string;
  /** A recorded fallback locator matched, or the LLM picked the element. */
  via: 'fallback' | 'llm';
}

export interface ReplayResult {
  status: 'PASSED' | 'FAILED';
  failedStepIndex?: number;
  error?: string;
  /** Steps whose locator was healed during this run; `steps` carries the new locators. */
  healed: HealedStep[];
  steps: Step[];
  durationMs: number;
}

/** Runs recorded steps with Playwright's auto-waiting; the LLM is involved only through `heal`, if given. */
export async function replaySteps(page: Page, recorded: Step[], opts: ReplayOptions): Promise<ReplayResult> {
  const started = performance.now();
  const steps = recorded.map((s) => ({ ...s }));
  const healed: HealedStep[] = [];
  const done = (extra: Partial<ReplayResult>): ReplayResult => ({
    status: 'PASSED',
    healed,
    steps,
    durationMs: Math.round(performance.now() - started),
    ...extra,
  });

  try {
    await page.goto(opts.startUrl, { waitUntil: 'domcontentloaded', timeout: Math.max(opts.timeoutMs, 15_000) });
  } catch (err) {
    return done({ status: 'FAILED', failedStepIndex: -1, error: `could not open ${opts.startUrl}: ${firstLine(err)}` });
  }

  for (const [index, step] of steps.entries()) {
    await opts.onStep?.(index, step);
    try {
      let locator;
      if (step.locator && (actionsWithElement.has(step.action) || step.action === 'press' || step.action === 'wait_for' || step.action === 'assert_text')) {
        try {
          const found = await locateElement(page, step, opts.timeoutMs);
          locator = found.locator;
          if (found.expression !== step.locator) {
            // A fallback matched: report it and promote it, the old primary goes last.
            healed.push({ index, from: step.locator, to: found.expression, via: 'fallback' });
            steps[index] = { ...step, locator: found.expression, fallbacks: [...(step.fallbacks ?? []).filter((f) => f !== found.expression), step.locator] };
          }
        } catch (err) {
          if (!(err instanceof ElementNotFoundError) || !opts.heal) throw err;
          const fix = await opts.heal(page, step, err);
          if (!fix) throw new ElementNotFoundError(`${err.message}; self-healing found no matching element`);
          healed.push({ index, from: step.locator, to: fix.locator, via: 'llm' });
          steps[index] = { ...step, locator: fix.locator, fallbacks: fix.fallbacks };
          locator = resolveLocator(page, fix.locator);
        }
      }
      await performAction(page, steps[index]!, locator, opts);
    } catch (err) {
      return done({ status: 'FAILED', failedStepIndex: index, error: `step ${index + 1} (${step.action}): ${firstLine(err)}` });
    }
  }
  return done({});
}
