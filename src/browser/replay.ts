import type { Locator, Page } from 'playwright-core';
import { withLocatorInFront, type Step } from '../domain/steps.js';
import { ElementNotFoundError, firstLine, locatesElement, performAction, probeElement, stepLocators, type ActionOptions } from './actions.js';
import { pageExcerpt } from './excerpt.js';
import { resolveLocator } from './locators.js';
import { elementTarget } from './record.js';

/** A heal the healer stands behind: the new primary locator (more may follow) and why it is the same element. */
export interface HealFix {
  locator: string;
  fallbacks: string[];
  reason: string;
}

/** Finds the element of a step whose locators no longer match: a fix, or why there is none (refused or not found). */
export type Healer = (page: Page, step: Step, error: ElementNotFoundError) => Promise<HealFix | { refused: string }>;

export interface ReplayOptions extends ActionOptions {
  /** Where the test starts: the environment URL, or where a resume-from dependency ended. */
  startUrl: string;
  heal?: Healer;
  /**
   * How long all of a step's locators are awaited together before healing starts (default 2 s). Without a
   * healer the probe is the whole step timeout: there is nothing faster to fall back on.
   */
  probeMs?: number;
  /** Secret values by name: redacted from the page excerpt of a failure. */
  secrets?: Record<string, string>;
  /** `index` is 0-based. */
  onStep?: (index: number, step: Step) => void | Promise<void>;
}

export interface HealedStep {
  /** 0-based index into the steps; the messages say "step N" with N = index + 1. */
  index: number;
  from: string | undefined;
  to: string;
  /** A recorded fallback locator matched, or the LLM picked the element (and its pick was checked). */
  via: 'fallback' | 'llm';
  /** The healer's justification (llm only). */
  reason?: string;
}

export interface ReplayResult {
  status: 'PASSED' | 'FAILED';
  /** 0-based index of the failing step; -1 when the start page did not open. The error text says "step N", 1-based. */
  failedStepIndex?: number;
  error?: string;
  /** Steps that needed another locator than their primary; `steps` carries them in front of the recorded ones. */
  healed: HealedStep[];
  steps: Step[];
  durationMs: number;
}

const defaultProbeMs = 2_000;

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
      const locator = locatesElement(step) ? await findElement(page, step, index, opts, healed, steps) : undefined;
      await performAction(page, steps[index]!, locator, opts);
    } catch (err) {
      const message = `step ${index + 1} (${step.action}): ${firstLine(err)}`;
      // What the page showed instead is what a reader of a failed assertion asks first.
      const excerpt = step.action.startsWith('assert_') || step.action === 'wait_for' ? await pageExcerpt(page, opts.secrets) : '';
      return done({ status: 'FAILED', failedStepIndex: index, error: excerpt ? `${message}; the page showed: "${excerpt}"` : message });
    }
  }
  return done({});
}

/**
 * The step's element: all its locators probed together, then (after the probe, not after the full timeout) the
 * healer; a healed step is verified by running it with the new locator, which the caller does next.
 */
async function findElement(page: Page, step: Step, index: number, opts: ReplayOptions, healed: HealedStep[], steps: Step[]): Promise<Locator> {
  const expressions = stepLocators(step);
  // An assert_text falls back to the whole page, so it never needs more than the probe either.
  const short = opts.heal || step.action === 'assert_text';
  const probeMs = short ? Math.min(opts.probeMs ?? defaultProbeMs, opts.timeoutMs) : opts.timeoutMs;
  let found = await probeElement(page, expressions, probeMs);
  let refusal: string | undefined;
  if (found && !(await showsExpectation(step, found.locator, probeMs))) {
    refusal = `the element ${found.expression} no longer shows "${step.target?.name}"`;
    found = undefined;
  }
  // An assert_text's expectation is its text, not its element: it is never healed (a heal could only point it
  // at other text), and when its scope is gone the text is looked for on the whole page instead.
  if (!found && opts.heal && step.action !== 'assert_text') {
    const notFound = new ElementNotFoundError(`no element matches ${expressions.join(' or ')} (step: ${step.description})`);
    const fix = await opts.heal(page, step, notFound);
    if ('locator' in fix) {
      healed.push({ index, from: step.locator, to: fix.locator, via: 'llm', reason: fix.reason });
      steps[index] = withLocatorInFront(step, fix.locator, fix.fallbacks);
      return resolveLocator(page, fix.locator);
    }
    refusal = fix.refused;
    // The page may only have been slow: give the recorded locators the rest of the step's time.
    found = await probeElement(page, expressions, opts.timeoutMs - probeMs);
    if (found && !(await showsExpectation(step, found.locator, opts.timeoutMs - probeMs))) found = undefined;
  }
  if (!found && step.action === 'assert_text') return page.locator('body');
  if (!found) {
    throw new ElementNotFoundError(`no element matches ${expressions.join(' or ')} (step: ${step.description})${refusal ? `; self-healing: ${refusal}` : ''}`);
  }
  if (found.expression !== step.locator) {
    // A recorded alternative matched: report it and put it in front, since it is the one this page answers to.
    healed.push({ index, from: step.locator, to: found.expression, via: 'fallback' });
    steps[index] = withLocatorInFront(step, found.expression);
  }
  return found.locator;
}

/**
 * A visibility assertion's expectation is its named element: whichever recorded locator found it (an id
 * fallback survives a translation, and a changed count too), the element must still show the recorded name.
 */
async function showsExpectation(step: Step, locator: Locator, waitMs: number): Promise<boolean> {
  const expected = step.target?.name;
  if (!expected || (step.action !== 'assert_visible' && step.action !== 'wait_for')) return true;
  const flat = (text: string) => text.replace(/\s+/g, ' ').trim();
  const element = locator.first();
  const deadline = Date.now() + waitMs;
  for (;;) {
    const shown = `${flat((await elementTarget(element))?.name ?? '')} ${flat(await element.innerText({ timeout: 1_000 }).catch(() => ''))}`;
    if (shown.includes(flat(expected))) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}
