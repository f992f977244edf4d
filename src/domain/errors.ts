// Domain errors: what a business operation refuses, in words a user can act on. They know nothing of HTTP or
// Temporal; the API maps them to a status once (src/api/errors.ts) and activities to a non-retryable failure once
// (activities/failures.ts).

export type DomainErrorKind = 'NotFound' | 'Invalid' | 'Conflict' | 'Unavailable' | 'Exhausted';
// Exhausted: a quota of the project is spent for now (the daily LLM budget, src/domain/llm-usage.ts).

export abstract class DomainError extends Error {
  abstract readonly kind: DomainErrorKind;
}

/** A referenced entity does not exist in the caller's project (or belongs to another one). */
export class NotFoundError extends DomainError {
  readonly kind = 'NotFound';
  override readonly name: string = 'NotFoundError';
  /** `new NotFoundError('Test plan')` reads "Test plan not found"; a detail names which one. */
  constructor(what: string, detail?: string) {
    super(detail ? `${what} not found: ${detail}` : `${what} not found`);
  }
}

/** What `load` returns, or undefined where it found nothing (a NotFoundError); any other failure is thrown. */
export async function notFoundAsUndefined<T>(load: () => Promise<T>): Promise<T | undefined> {
  try {
    return await load();
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
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
  override readonly name: string = 'ConflictError';
}

/** The request was stored, but a service it needs (Temporal) did not take it; the message says what was kept. */
export class UnavailableError extends DomainError {
  readonly kind = 'Unavailable';
  override readonly name: string = 'UnavailableError';
}

// The errors below are what running a test (a burn-in, a replay, a chat turn, a notification) refuses. Each is a
// kind above; activities/failures.ts gives each its own failure type, which the workflows tell apart.

/** Something the work was started with is gone since (a deleted build, a dependency's stored browser state). */
export class GoneError extends DomainError {
  readonly kind = 'NotFound';
  override readonly name = 'GoneError';
}

/** A test case that cannot run as defined: no recorded steps, no environment URL, a broken resume-from chain. */
export class BadTestDefinitionError extends InvalidError {
  override readonly name = 'BadTestDefinitionError';
}

/** The application under test did not answer: a deployment may be restarting, so this one is worth retrying. */
export class ApplicationUnreachableError extends UnavailableError {
  override readonly name = 'ApplicationUnreachableError';
}

/** No LLM endpoint is configured, so nothing that needs the model can run until one is. */
export class LlmNotConfiguredError extends UnavailableError {
  override readonly name = 'LlmNotConfiguredError';
  constructor() {
    super(
      'No LLM is configured: set OPENAI_API_KEY (and OPENAI_BASE_URL for a non-OpenAI endpoint, PROCTOR_LLM_MODEL for the model)',
    );
  }
}

/** The LLM endpoint failed after its retries where the work cannot wait for it (a burn-in fails with its message). */
export class LlmGaveUpError extends UnavailableError {
  override readonly name = 'LlmGaveUpError';
}

/** A mobile test with no device farm configured: it cannot run, and says so. */
export class NoDeviceFarmError extends UnavailableError {
  override readonly name = 'NoDeviceFarmError';
}

/** A run to notify about does not exist. */
export class RunNotFoundError extends NotFoundError {
  override readonly name = 'RunNotFoundError';
  constructor(runId: string) {
    super(`run ${runId}`);
  }
}

/** A run to notify about has not finished yet. */
export class RunNotFinishedError extends ConflictError {
  override readonly name = 'RunNotFinishedError';
}
