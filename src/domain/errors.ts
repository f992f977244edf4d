// Domain errors: what a business operation refuses, in words a user can act on. They know nothing of HTTP or
// Temporal; the API maps them to a status once (src/api/errors.ts) and activities to a non-retryable failure once
// (activities/failures.ts).

export type DomainErrorKind = 'NotFound' | 'Invalid' | 'Conflict' | 'Unavailable';

export abstract class DomainError extends Error {
  abstract readonly kind: DomainErrorKind;
}

/** A referenced entity does not exist in the caller's project (or belongs to another one). */
export class NotFoundError extends DomainError {
  readonly kind = 'NotFound';
  override readonly name = 'NotFoundError';
  /** `new NotFoundError('Test plan')` reads "Test plan not found"; a detail names which one. */
  constructor(what: string, detail?: string) {
    super(detail ? `${what} not found: ${detail}` : `${what} not found`);
  }
}

/** The input breaks a rule (a dependency cycle, an application without an environment, nothing to run). */
export class InvalidError extends DomainError {
  readonly kind = 'Invalid';
  override readonly name: string = 'InvalidError';
}

/** A plan with no enabled test case: a request error for a caller, a tick with nothing to do for a schedule. */
export class NothingToRunError extends InvalidError {
  override readonly name: string = 'NothingToRunError';
}

/** The operation contradicts the current state (delete a dependency of others, rerun a run still going). */
export class ConflictError extends DomainError {
  readonly kind = 'Conflict';
  override readonly name = 'ConflictError';
}

/** The request was stored, but a service it needs (Temporal) did not take it; the message says what was kept. */
export class UnavailableError extends DomainError {
  readonly kind = 'Unavailable';
  override readonly name = 'UnavailableError';
}
