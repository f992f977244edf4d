import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { mapDomainErrors, toActivityFailure } from '../../activities/failures.js';
import {
  ApplicationUnreachableError,
  BadTestDefinitionError,
  ConflictError,
  GoneError,
  InvalidError,
  LlmGaveUpError,
  LlmNotConfiguredError,
  NoDeviceFarmError,
  NotFoundError,
  NothingToRunError,
  RunNotFinishedError,
  RunNotFoundError,
  UnavailableError,
} from '../../src/domain/errors.js';
import { LlmUnavailableError } from '../../src/llm/client.js';
import { failureTypes } from '../../workflows/shared.js';

// activities/failures.ts is the one place a domain error becomes a Temporal failure: each error keeps the failure
// type (and retryability) the workflows match on, and its message.

describe('toActivityFailure', () => {
  it.each([
    [new NotFoundError('test case t1'), failureTypes.notFound, true],
    [new GoneError('build b1 no longer exists'), failureTypes.notFound, true],
    [new InvalidError('no environment'), failureTypes.invalid, true],
    [new NothingToRunError('nothing enabled'), failureTypes.nothingToRun, true],
    [new ConflictError('still going'), failureTypes.conflict, true],
    [new BadTestDefinitionError('no recorded steps'), failureTypes.badDefinition, true],
    [
      new ApplicationUnreachableError('application unreachable at https://x.test: refused'),
      failureTypes.unreachable,
      false,
    ],
    [new LlmNotConfiguredError(), failureTypes.llmNotConfigured, true],
    [new LlmGaveUpError('the LLM endpoint failed after retries: 500'), failureTypes.llmUnavailable, true],
    [new NoDeviceFarmError('no device farm is configured'), failureTypes.noDeviceFarm, true],
    [new RunNotFoundError('r1'), failureTypes.runNotFound, true],
    [new RunNotFinishedError('run r1 has not finished (status RUNNING)'), failureTypes.runNotFinished, true],
  ])('%s becomes %s (non-retryable: %s) with its message', (err, type, nonRetryable) => {
    const failure = toActivityFailure(err);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type, nonRetryable, message: err.message });
  });

  it('keeps the messages the activities gave before', () => {
    expect(new NotFoundError('test case t1').message).toBe('test case t1 not found');
    expect(new RunNotFoundError('r1').message).toBe('run r1 not found');
  });

  it('leaves Unavailable and every other error to the retry policy', () => {
    const unavailable = new UnavailableError('Temporal did not take it');
    expect(toActivityFailure(unavailable)).toBe(unavailable);
    const llmDown = new LlmUnavailableError('the LLM endpoint failed after retries: 500');
    expect(toActivityFailure(llmDown)).toBe(llmDown);
  });

  it('maps what a wrapped activity throws', async () => {
    const activities = mapDomainErrors({
      fail: async () => Promise.reject(new BadTestDefinitionError('resume-from dependencies form a cycle')),
    });
    await expect(activities.fail()).rejects.toMatchObject({ type: failureTypes.badDefinition, nonRetryable: true });
  });
});
