import type { FailureKind } from '../../domain/verdicts.js';

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

export function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
}
