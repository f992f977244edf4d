import type { Page, Response } from 'playwright-core';
import type { Step } from '../../domain/steps.js';
import type { FailureKind } from '../../domain/verdicts.js';
import { ElementNotFoundError, StepFailedError } from '../steps/actions.js';
import { MailStepError } from '../steps/email-steps.js';
import { kindOfAction } from '../steps/registry.js';
import { LocatorSyntaxError } from '../../domain/locators.js';

// Why a replayed step failed: the kinds a reader needs to tell a real bug from a flaky test or a down environment.

export class EnvironmentError extends StepFailedError {
  override name = 'EnvironmentError';
  override readonly kind = 'environment' as const;
}

/** A step that failed for a known reason: its element changed (another role, other text), or healing was down. */
export class TargetChangedError extends StepFailedError {
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
  // A mail step knows why it failed (performAction wraps its error; the cause keeps the kind).
  const mailFailure =
    err instanceof MailStepError
      ? err
      : err instanceof Error && err.cause instanceof MailStepError
        ? err.cause
        : undefined;
  if (mailFailure) return mailFailure.kind;
  const message = err instanceof Error ? err.message : String(err);
  if (/Target (page|context|browser|closed)|browser has been closed|crash/i.test(message)) return 'infrastructure';
  if (httpStatus !== undefined && httpStatus >= 500) return 'environment';
  if (err instanceof LocatorSyntaxError) return 'test-definition';
  if (/net::ERR_/.test(message)) return 'environment';
  if (err instanceof ElementNotFoundError) return 'element-missing';
  // By the step's kind: a navigation (open_link too: to where the application's mail pointed) fails in the
  // environment, a check as an assertion; a mail step's own failures carry their kind (above), anything else of
  // wait_for_email is reading Proctor's inbox failing.
  if (!step) return 'environment';
  const failure = kindOfAction(step.action)?.failure;
  if (failure) return failure;
  // Here the element was found and matches its recording (a changed one failed above as a TargetChangedError), so
  // the UI did not change: what failed is what the page showed at that moment.
  return actionFailureKind(message);
}

/**
 * An action on an element that matches its recording: text or an option that never showed (a scroll that reached
 * the container's end, an option not offered) or an element hidden at that moment is missing; one that could not
 * be used (disabled, covered, no previous page to go back to) is the page not doing what the step expects.
 */
export function actionFailureKind(message: string): FailureKind {
  if (/did not appear|is not offered|not visible|not attached|detached|waiting for .*to be visible/i.test(message))
    return 'element-missing';
  return 'assertion';
}

/** The status of the main document the page last loaded (a 5xx is an environment failure, not the test's). */
export function watchDocument(page: Page): { status(): number | undefined; stop(): void } {
  let status: number | undefined;
  const onResponse = (response: Response) => {
    if (response.request().isNavigationRequest() && response.frame() === page.mainFrame()) status = response.status();
  };
  page.on('response', onResponse);
  return { status: () => status, stop: () => page.off('response', onResponse) };
}
