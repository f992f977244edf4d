import { ApplicationFailure } from '@temporalio/common';
import {
  ApplicationUnreachableError,
  BadTestDefinitionError,
  DomainError,
  LlmGaveUpError,
  LlmNotConfiguredError,
  NoDeviceFarmError,
  NothingToRunError,
  RunNotFinishedError,
  RunNotFoundError,
  type DomainErrorKind,
} from '../src/domain/errors.js';
import { SecretUnreadableError } from '../src/db/envelope.js';
import { failureTypes } from '../workflows/shared.js';

/** A secret that does not open: the master key is wrong or missing, which no retry changes. */
export const secretUnreadableType = 'SecretUnreadable';

const typeOf: Record<DomainErrorKind, string> = {
  NotFound: failureTypes.notFound,
  Invalid: failureTypes.invalid,
  Conflict: failureTypes.conflict,
  Unavailable: '',
  Exhausted: failureTypes.llmBudgetExceeded,
};

type DomainErrorClass = abstract new (...args: never[]) => DomainError;

/**
 * Errors the workflows (or an operator reading a history) tell apart from their kind, each with its own type;
 * checked before the kind. Only an unreachable application is retried: a deployment may be restarting.
 */
const byClass: readonly { error: DomainErrorClass; type: string; retryable?: true }[] = [
  { error: NothingToRunError, type: failureTypes.nothingToRun },
  { error: BadTestDefinitionError, type: failureTypes.badDefinition },
  { error: ApplicationUnreachableError, type: failureTypes.unreachable, retryable: true },
  { error: LlmNotConfiguredError, type: failureTypes.llmNotConfigured },
  { error: LlmGaveUpError, type: failureTypes.llmUnavailable },
  { error: NoDeviceFarmError, type: failureTypes.noDeviceFarm },
  { error: RunNotFoundError, type: failureTypes.runNotFound },
  { error: RunNotFinishedError, type: failureTypes.runNotFinished },
];

/**
 * The one place a domain error becomes a Temporal failure: a missing entity or a broken rule will not change on
 * retry, so it fails at once (non-retryable) with the error's message. `Unavailable` (Temporal did not take a
 * start) is transient and left to the retry policy, as is every other error.
 */
export function toActivityFailure(err: unknown): unknown {
  if (err instanceof SecretUnreadableError)
    return ApplicationFailure.create({ message: err.explanation, type: secretUnreadableType, nonRetryable: true });
  if (!(err instanceof DomainError)) return err;
  const special = byClass.find((c) => err instanceof c.error);
  if (special)
    return ApplicationFailure.create({ message: err.message, type: special.type, nonRetryable: !special.retryable });
  if (err.kind === 'Unavailable') return err;
  return ApplicationFailure.create({ message: err.message, type: typeOf[err.kind], nonRetryable: true });
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
