import { ApplicationFailure } from '@temporalio/common';
import { DomainError, NothingToRunError, type DomainErrorKind } from '../src/domain/errors.js';
import { failureTypes } from '../workflows/shared.js';

const typeOf: Record<DomainErrorKind, string> = {
  NotFound: failureTypes.notFound,
  Invalid: failureTypes.invalid,
  Conflict: failureTypes.conflict,
  Unavailable: '',
};

/**
 * The one place a service's domain error becomes a Temporal failure: a missing entity or a broken rule will not
 * change on retry, so it fails at once (non-retryable) with the service's message. `Unavailable` (Temporal did not
 * take a start) is transient and left to the retry policy, as is every other error.
 */
export function toActivityFailure(err: unknown): unknown {
  if (!(err instanceof DomainError) || err.kind === 'Unavailable') return err;
  const type = err instanceof NothingToRunError ? failureTypes.nothingToRun : typeOf[err.kind];
  return ApplicationFailure.create({ message: err.message, type, nonRetryable: true });
}

type Activity = (...args: never[]) => Promise<unknown>;

/** The same activities, each mapping domain errors through `toActivityFailure`. */
export function mapDomainErrors<T extends Record<string, Activity>>(activities: T): T {
  const mapped: Record<string, Activity> = {};
  for (const [name, activity] of Object.entries(activities)) {
    mapped[name] = async (...args: never[]) => {
      try {
        return await activity(...args);
      } catch (err) {
        throw toActivityFailure(err);
      }
    };
  }
  return mapped as T;
}
