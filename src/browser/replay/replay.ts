import type { Locator, Page } from 'playwright-core';
import { isPageCheck, withLocatorInFront, type Step, type StepTarget } from '../../domain/steps.js';
import type { FailureEvidence, FailureKind, StepChange } from '../../domain/verdicts.js';
import {
  ElementNotFoundError,
  firstLine,
  locatesElement,
  inStepSpan,
  performAction,
  stepLocators,
  type ActionOptions,
} from '../steps/actions.js';
import { findDropTarget } from './drop-target.js';
import { VisualCheckError } from '../steps/visual.js';
import { probeAndSee } from './probe.js';
import { pageExcerpt } from '../record/excerpt.js';
import { BrowserSession, type DownloadedFile } from '../session/session.js';
import { documentBodyOf, resolveLocator } from '../locators.js';
import { classifyFailure, EnvironmentError, TargetChangedError, watchDocument } from './replay-failures.js';
import {
  Mismatch,
  proposalFor,
  verifyTarget,
  type ExpectationProposal,
  type Findings,
  type HealedStep,
} from './verify-target.js';

export type { ExpectationProposal, HealedStep } from './verify-target.js';

/** A heal the healer stands behind: the new primary locator (more may follow) and why it is the same element. */
export interface HealFix {
  locator: string;
  fallbacks: string[];
  reason: string;
}

/** Finds the element of a step whose locators no longer match: a fix, or why there is none (refused or not found). */
export type Healer = (page: Page, step: Step, error: ElementNotFoundError) => Promise<HealFix | HealRefusal>;

/**
 * Why there is no heal. `candidate`: the element the step means is there, but shows other text than recorded
 * (a new locale, new copy): never taken, only offered to a person as the step's new expectation.
 */
export interface HealRefusal {
  refused: string;
  candidate?: { locator: string; fallbacks: string[]; target: StepTarget };
}

export interface ReplayOptions extends ActionOptions {
  /** Where the test starts: the environment URL, or where a resume-from dependency ended. */
  startUrl: string;
  heal?: Healer;
  /**
   * How long all of a step's locators are awaited together before healing starts (default 2 s). Without a
   * healer the probe is the whole step timeout: there is nothing faster to fall back on.
   */
  probeMs?: number;
  /** A file a step downloaded and checked, while it is still on disk (`index` is 0-based): kept as a run artifact. */
  onDownload?: (index: number, file: DownloadedFile) => Promise<void>;
  /** `index` is 0-based. */
  onStep?: (index: number, step: Step) => void | Promise<void>;
}

export interface ReplayResult {
  status: 'PASSED' | 'FAILED';
  /** 0-based index of the failing step; -1 when the start page did not open. The error text says "step N", 1-based. */
  failedStepIndex?: number;
  error?: string;
  /** Why it failed, with what the page showed (FAILED only). */
  failureKind?: FailureKind;
  evidence?: FailureEvidence;
  /** Steps that needed another locator than their primary; `steps` carries them in front of the recorded ones. */
  healed: HealedStep[];
  /** How the elements the steps used differ from the recorded ones, whichever locator found them. */
  changes: StepChange[];
  proposals: ExpectationProposal[];
  steps: Step[];
  durationMs: number;
}

const defaultProbeMs = 2_000;

/** Runs recorded steps with Playwright's auto-waiting; the LLM is involved only through `heal`, if given. */
export async function replaySteps(page: Page, recorded: Step[], opts: ReplayOptions): Promise<ReplayResult> {
  const started = performance.now();
  const steps = recorded.map((s) => ({ ...s }));
  const found: Findings = { healed: [], changes: [], proposals: [] };
  const document = watchDocument(page);
  const session = new BrowserSession(page);
  const done = (extra: Partial<ReplayResult>): ReplayResult => ({
    status: 'PASSED',
    ...found,
    steps,
    durationMs: Math.round(performance.now() - started),
    ...extra,
  });
  const failed = async (
    index: number,
    step: Step | undefined,
    err: unknown,
    message: string,
  ): Promise<ReplayResult> => {
    const excerpt = await pageExcerpt(session.page(), opts.values.secrets(), step?.locator);
    const httpStatus = document.status();
    const evidence: FailureEvidence = {
      url: session.page().url(),
      ...(excerpt && { pageExcerpt: excerpt }),
      ...(httpStatus !== undefined && { httpStatus }),
    };
    // What the page showed instead is what a reader of a failed assertion asks first.
    const quoteExcerpt = excerpt && step && isPageCheck(step.action);
    return done({
      status: 'FAILED',
      failedStepIndex: index,
      error: quoteExcerpt ? `${message}; the page showed: "${excerpt}"` : message,
      failureKind: classifyFailure(step, err, httpStatus),
      evidence,
    });
  };

  try {
    try {
      const response = await page.goto(opts.startUrl, {
        waitUntil: 'domcontentloaded',
        timeout: Math.max(opts.timeoutMs, 15_000),
      });
      const status = response?.status() ?? 0;
      if (status >= 500)
        return await failed(-1, undefined, new EnvironmentError(), `${opts.startUrl} answered HTTP ${status}`);
    } catch (err) {
      return await failed(-1, undefined, new EnvironmentError(), `could not open ${opts.startUrl}: ${firstLine(err)}`);
    }

    let firstVisual: ReplayResult | undefined;
    for (const [index, step] of steps.entries()) {
      await opts.onStep?.(index, step);
      try {
        await inStepSpan(step, index, async () => {
          // The step's own tab (a popup, a new tab): its dialogs, new tab and download are checked by the session.
          const current = session.pageFor(step);
          const locator = locatesElement(step)
            ? await findElement(current, step, index, opts, found, steps)
            : undefined;
          const drop = await findDropTarget(steps, index, (s, list) =>
            findElement(current, s, index, opts, found, list),
          );
          const onDownload = opts.onDownload && ((file: DownloadedFile) => opts.onDownload!(index, file));
          await session.replay(
            step,
            opts.timeoutMs,
            (tab) => performAction(tab, steps[index]!, locator, opts, { drop }),
            onDownload,
          );
        });
      } catch (err) {
        // A heal is only what a passing step proves: the step that failed is reported as failed, never as healed
        // (an assert_text's fallback may find its element, whose text is then wrong), and keeps its recorded locators.
        found.healed = found.healed.filter((h) => h.index !== index);
        steps[index] = step;
        const failure = await failed(index, step, err, `step ${index + 1} (${step.action}): ${firstLine(err)}`);
        // A page that only looks different is still used: the steps after it run, so a change review can tell
        // a restyled page (a visual change for a person to look at) from a broken one (a failed test).
        // (Only a difference: a check that could not take its screenshot failed, as any other step.)
        if (!(err instanceof VisualCheckError)) return failure;
        firstVisual ??= failure;
      }
    }
    // The test fails at its first visual difference when nothing else failed (the baseline store was told of each).
    return firstVisual ? { ...firstVisual, ...found, steps, durationMs: done({}).durationMs } : done({});
  } finally {
    session.dispose();
    document.stop();
  }
}

/**
 * The step's element: all its locators probed together, then (after the probe, not after the full timeout) the
 * healer. However the element was found, it is compared with the recorded one before the step acts on it.
 */
async function findElement(
  page: Page,
  step: Step,
  index: number,
  opts: ReplayOptions,
  found: Findings,
  steps: Step[],
): Promise<Locator> {
  const expressions = stepLocators(step);
  // An assert_text falls back to the whole page (of its frame), so it never needs more than the probe either.
  const short = opts.heal || step.action === 'assert_text';
  const probeMs = short ? Math.min(opts.probeMs ?? defaultProbeMs, opts.timeoutMs) : opts.timeoutMs;
  const recordedMatch = async (waitMs: number): Promise<Locator | Mismatch | undefined> => {
    const match = await probeAndSee(page, step, expressions, waitMs);
    if (!match) return undefined;
    const verified = await verifyTarget(page, step, index, match, waitMs, found);
    if (!(verified instanceof Mismatch) && match.expression !== step.locator && verified === match.locator) {
      // A recorded alternative matched: report it and put it in front, since it is the one this page answers to.
      found.healed.push({ index, from: step.locator, to: match.expression, via: 'fallback' });
      steps[index] = withLocatorInFront(step, match.expression);
    }
    return verified;
  };
  let outcome = await recordedMatch(probeMs);
  if (outcome && !(outcome instanceof Mismatch)) return outcome;
  let refusal: string | undefined;
  // An assert_text's expectation is its text, not its element: it is never healed (a heal could only point it
  // at other text), and when its scope is gone the text is looked for on the whole page (of its frame) instead.
  if (opts.heal && step.action !== 'assert_text') {
    const notFound = new ElementNotFoundError(
      `no element matches ${expressions.join(' or ')} (step: ${step.description})`,
    );
    // A healer that cannot answer (the model is down) is Proctor's failure, not the application's.
    const fix = await opts.heal(page, step, notFound).catch((err: unknown) => {
      throw new TargetChangedError(firstLine(err), 'infrastructure');
    });
    if ('locator' in fix) {
      const healed = await verifyTarget(
        page,
        step,
        index,
        { locator: resolveLocator(page, fix.locator), expression: fix.locator },
        opts.timeoutMs - probeMs,
        found,
      );
      if (healed instanceof Mismatch) throw healed.error(found);
      found.healed.push({ index, from: step.locator, to: fix.locator, via: 'llm', reason: fix.reason });
      steps[index] = withLocatorInFront(step, fix.locator, fix.fallbacks);
      return healed;
    }
    refusal = fix.refused;
    if (fix.candidate) found.proposals.push(proposalFor(index, step, fix.candidate));
    // The page may only have been slow: give the recorded locators the rest of the step's time.
    else outcome = (await recordedMatch(opts.timeoutMs - probeMs)) ?? outcome;
    if (outcome && !(outcome instanceof Mismatch)) return outcome;
  }
  if (outcome instanceof Mismatch) throw outcome.error(found, refusal);
  // The whole page of the step's own frame: the top page's body has none of an iframe's text, so a framed check whose
  // scope came after the probe (a frame loads a document later, on a busy machine later still) failed a good build.
  if (step.action === 'assert_text') return documentBodyOf(page, step.locator ?? '');
  const message = `no element matches ${expressions.join(' or ')} (step: ${step.description})${refusal ? `; self-healing: ${refusal}` : ''}`;
  throw found.proposals.some((p) => p.index === index)
    ? new TargetChangedError(message, 'changed-ui')
    : new ElementNotFoundError(message);
}
