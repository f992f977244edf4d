import type { Locator, Page, Response } from 'playwright-core';
import { withLocatorInFront, type Step, type StepTarget } from '../domain/steps.js';
import type { FailureEvidence, FailureKind, StepChange } from '../domain/verdicts.js';
import { ElementNotFoundError, firstLine, locatesElement, performAction, probeElement, StepFailedError, stepLocators, type ActionOptions } from './actions.js';
import { pageExcerpt } from './excerpt.js';
import { LocatorSyntaxError, quote, resolveLocator } from './locators.js';
import { elementTarget } from './record.js';
import { assertsElement, compareTarget, expectationOf, flat, recordedTarget, showsExpectation, type SeenElement } from './target-check.js';

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

/**
 * A step that failed because its element now shows something else (an assertion's text, a control's label): the
 * element as it is now, for a person to accept as the step's new expectation. Never applied by itself.
 */
export interface ExpectationProposal {
  index: number;
  from: string;
  to: string;
  locator: string;
  fallbacks: string[];
  target: StepTarget;
  /** In plain words, e.g. `the heading now reads "Website-Verwaltung"; accept to update this assertion`. */
  reason: string;
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

/** What one replay accumulates besides its steps. */
interface Findings {
  healed: HealedStep[];
  changes: StepChange[];
  proposals: ExpectationProposal[];
}

/** Runs recorded steps with Playwright's auto-waiting; the LLM is involved only through `heal`, if given. */
export async function replaySteps(page: Page, recorded: Step[], opts: ReplayOptions): Promise<ReplayResult> {
  const started = performance.now();
  const steps = recorded.map((s) => ({ ...s }));
  const found: Findings = { healed: [], changes: [], proposals: [] };
  const document = watchDocument(page);
  const done = (extra: Partial<ReplayResult>): ReplayResult => ({
    status: 'PASSED',
    ...found,
    steps,
    durationMs: Math.round(performance.now() - started),
    ...extra,
  });
  const failed = async (index: number, step: Step | undefined, err: unknown, message: string): Promise<ReplayResult> => {
    const excerpt = await pageExcerpt(page, opts.secrets);
    const httpStatus = document.status();
    const evidence: FailureEvidence = { url: page.url(), ...(excerpt && { pageExcerpt: excerpt }), ...(httpStatus !== undefined && { httpStatus }) };
    // What the page showed instead is what a reader of a failed assertion asks first.
    const quoteExcerpt = excerpt && step && (step.action.startsWith('assert_') || step.action === 'wait_for');
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
      const response = await page.goto(opts.startUrl, { waitUntil: 'domcontentloaded', timeout: Math.max(opts.timeoutMs, 15_000) });
      const status = response?.status() ?? 0;
      if (status >= 500) return await failed(-1, undefined, new EnvironmentError(), `${opts.startUrl} answered HTTP ${status}`);
    } catch (err) {
      return await failed(-1, undefined, new EnvironmentError(), `could not open ${opts.startUrl}: ${firstLine(err)}`);
    }

    for (const [index, step] of steps.entries()) {
      await opts.onStep?.(index, step);
      try {
        const locator = locatesElement(step) ? await findElement(page, step, index, opts, found, steps) : undefined;
        await performAction(page, steps[index]!, locator, opts);
      } catch (err) {
        return await failed(index, step, err, `step ${index + 1} (${step.action}): ${firstLine(err)}`);
      }
    }
    return done({});
  } finally {
    document.stop();
  }
}

class EnvironmentError extends StepFailedError {
  override name = 'EnvironmentError';
  override readonly kind = 'environment' as const;
}

/** A step that failed for a known reason: its element changed (another role, other text), or healing was down. */
class TargetChangedError extends StepFailedError {
  override name = 'TargetChangedError';
  constructor(
    message: string,
    override readonly kind: FailureKind,
  ) {
    super(message);
  }
}

/** Why a step failed, from the error and what the application answered for the page. */
export function classifyFailure(step: Step | undefined, err: unknown, httpStatus: number | undefined): FailureKind {
  if (err instanceof StepFailedError && err.kind) return err.kind;
  const message = err instanceof Error ? err.message : String(err);
  if (/Target (page|context|browser|closed)|browser has been closed|crash/i.test(message)) return 'infrastructure';
  if (httpStatus !== undefined && httpStatus >= 500) return 'environment';
  if (err instanceof LocatorSyntaxError) return 'test-definition';
  if (/net::ERR_/.test(message)) return 'environment';
  if (err instanceof ElementNotFoundError) return 'element-missing';
  if (!step || step.action === 'navigate') return 'environment';
  if (step.action.startsWith('assert_') || step.action === 'wait_for') return 'assertion';
  // The element was found and the action could not be done on it (disabled, covered, not a checkbox any more).
  return 'changed-ui';
}

/** The status of the main document the page last loaded (a 5xx is an environment failure, not the test's). */
function watchDocument(page: Page): { status(): number | undefined; stop(): void } {
  let status: number | undefined;
  const onResponse = (response: Response) => {
    if (response.request().isNavigationRequest() && response.frame() === page.mainFrame()) status = response.status();
  };
  page.on('response', onResponse);
  return { status: () => status, stop: () => page.off('response', onResponse) };
}

/**
 * The step's element: all its locators probed together, then (after the probe, not after the full timeout) the
 * healer. However the element was found, it is compared with the recorded one before the step acts on it.
 */
async function findElement(page: Page, step: Step, index: number, opts: ReplayOptions, found: Findings, steps: Step[]): Promise<Locator> {
  const expressions = stepLocators(step);
  // An assert_text falls back to the whole page, so it never needs more than the probe either.
  const short = opts.heal || step.action === 'assert_text';
  const probeMs = short ? Math.min(opts.probeMs ?? defaultProbeMs, opts.timeoutMs) : opts.timeoutMs;
  const recordedMatch = async (waitMs: number): Promise<Locator | Mismatch | undefined> => {
    const match = await probeElement(page, expressions, waitMs);
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
  // at other text), and when its scope is gone the text is looked for on the whole page instead.
  if (opts.heal && step.action !== 'assert_text') {
    const notFound = new ElementNotFoundError(`no element matches ${expressions.join(' or ')} (step: ${step.description})`);
    // A healer that cannot answer (the model is down) is Proctor's failure, not the application's.
    const fix = await opts.heal(page, step, notFound).catch((err: unknown) => {
      throw new TargetChangedError(firstLine(err), 'infrastructure');
    });
    if ('locator' in fix) {
      const healed = await verifyTarget(page, step, index, { locator: resolveLocator(page, fix.locator), expression: fix.locator }, opts.timeoutMs - probeMs, found);
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
  if (step.action === 'assert_text') return page.locator('body');
  const message = `no element matches ${expressions.join(' or ')} (step: ${step.description})${refusal ? `; self-healing: ${refusal}` : ''}`;
  throw found.proposals.some((p) => p.index === index) ? new TargetChangedError(message, 'changed-ui') : new ElementNotFoundError(message);
}

/** An element that does not show the step's expectation: the failure, and the text it shows now as a proposal. */
class Mismatch {
  constructor(
    readonly message: string,
    readonly proposal: ExpectationProposal | undefined,
  ) {}

  error(found: Findings, refusal?: string): TargetChangedError {
    if (this.proposal && !found.proposals.some((p) => p.index === this.proposal!.index)) found.proposals.push(this.proposal);
    return new TargetChangedError(`${this.message}${refusal ? `; self-healing: ${refusal}` : ''}`, 'assertion');
  }
}

/** The element as the accessibility tree and the page show it now. */
async function seeElement(locator: Locator): Promise<SeenElement> {
  const element = locator.first();
  const [target, text] = await Promise.all([elementTarget(element), element.innerText({ timeout: 1_000 }).catch(() => '')]);
  return { role: target?.role ?? 'generic', ...(target?.name && { name: target.name }), text };
}

/**
 * Compares the element a locator found with the recorded one. An assertion must show its recorded expectation
 * (waiting for it, since text arrives late); an action's element reports its changes (a lost name, another role).
 * When the locator found another element than the recorded one while the recorded one is on the page (swapped
 * neighbours, a test id moved), the step uses the recorded one and says so. Returns the element to act on.
 */
async function verifyTarget(
  page: Page,
  step: Step,
  index: number,
  match: { locator: Locator; expression: string },
  waitMs: number,
  found: Findings,
): Promise<Locator | Mismatch> {
  if (step.action === 'assert_text') return match.locator;
  const deadline = Date.now() + Math.max(waitMs, 0);
  // An action's element settles fast; a short wait covers a label rendered after the control.
  const settleBy = Date.now() + Math.min(Math.max(waitMs, 0), 1_000);
  let seen = await seeElement(match.locator);
  if (assertsElement(step)) {
    while (!showsExpectation(step, seen) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      seen = await seeElement(match.locator);
    }
    if (showsExpectation(step, seen)) return match.locator;
    const recorded = await recordedElementElsewhere(page, step, match.locator);
    if (recorded) return useRecorded(index, step, match, recorded, seen, found);
    const shown = flat(seen.name || seen.text);
    const message = `${match.expression} shows ${shown ? `"${shown.slice(0, 200)}"` : 'no text'}, not the expected "${expectationOf(step)}" (${step.description})`;
    // Only the same kind of element showing other text is a new expectation to offer; an emptied one is not.
    const sameKind = !recordedTarget(step)?.role || recordedTarget(step)?.role === seen.role;
    const target = { role: seen.role, ...(seen.name && { name: seen.name }), ...(seen.text && { text: flat(seen.text).slice(0, 300) }) };
    return new Mismatch(message, shown && sameKind ? proposalFor(index, step, { locator: match.expression, fallbacks: [], target }) : undefined);
  }
  let changes = compareTarget(index, step, seen);
  while (changes.length > 0 && Date.now() < settleBy) {
    await new Promise((r) => setTimeout(r, 100));
    seen = await seeElement(match.locator);
    changes = compareTarget(index, step, seen);
  }
  if (changes.length === 0) return match.locator;
  const recorded = await recordedElementElsewhere(page, step, match.locator);
  if (recorded) return useRecorded(index, step, match, recorded, seen, found);
  found.changes.push(...changes);
  return match.locator;
}

/** The element that has the recorded role and name (or text), when it is on the page once and is not `other`. */
async function recordedElementElsewhere(page: Page, step: Step, other: Locator): Promise<{ locator: Locator; expression: string } | undefined> {
  const target = recordedTarget(step);
  const expected = target?.name || expectationOf(step);
  if (!expected) return undefined;
  const expression =
    target?.role && target.name && target.role !== 'generic' && target.role !== 'text'
      ? `getByRole(${quote(target.role)}, { name: ${quote(target.name)}, exact: true })`
      : `getByText(${quote(expected)}, { exact: true })`;
  const candidate = resolveLocator(page, expression);
  if ((await candidate.count().catch(() => 0)) !== 1) return undefined;
  const same = await other
    .first()
    .evaluate((el, theirs) => el === theirs, await candidate.elementHandle({ timeout: 1_000 }))
    .catch(() => true);
  return same ? undefined : { locator: candidate, expression };
}

function useRecorded(index: number, step: Step, match: { expression: string }, recorded: { locator: Locator; expression: string }, seen: SeenElement, found: Findings): Locator {
  const target = recordedTarget(step);
  const now = seen.name || flat(seen.text).slice(0, 80) || seen.role;
  found.changes.push({
    stepIndex: index,
    field: 'name',
    from: target?.name ?? expectationOf(step) ?? null,
    to: now,
    severity: 'cosmetic',
    summary: `${match.expression} now finds "${now}"; the step used the recorded ${target?.role || 'element'} "${target?.name ?? expectationOf(step)}" instead`,
  });
  found.healed.push({ index, from: step.locator, to: recorded.expression, via: 'fallback' });
  return recorded.locator;
}

function proposalFor(index: number, step: Step, candidate: { locator: string; fallbacks: string[]; target: StepTarget }): ExpectationProposal {
  const from = expectationOf(step) ?? recordedTarget(step)?.name ?? '';
  const to = candidate.target.name || candidate.target.text || '';
  const what = candidate.target.role && candidate.target.role !== 'generic' ? `the ${candidate.target.role}` : 'the element';
  const verb = assertsElement(step) ? 'accept to update this assertion' : 'accept to update this step';
  return { index, from, to, ...candidate, reason: `${what} now reads "${to}"; ${verb}` };
}
