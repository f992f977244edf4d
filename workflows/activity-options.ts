import { ActivityCancellationType, type ActivityOptions } from '@temporalio/workflow';
import { failureTypes, permanentFailureTypes } from './shared.js';

// Named presets instead of options repeated at each call (one place to tune retries and timeouts).

/** Short database reads and writes. */
export const dbActivity: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 10 },
};

/**
 * Notifications and clean-up: retried a few times, then given up on (the caller logs it); never a reason to fail the
 * run or the tick that sends them.
 */
export const bestEffortActivity: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5, initialInterval: '2 seconds' },
};

/**
 * A whole browser session (burn-in or replay): heartbeats every second, so a dead worker is noticed fast and a
 * cancellation reaches it promptly; a cancelled caller waits until the session has closed its browser context.
 */
export const browserActivity: ActivityOptions = {
  startToCloseTimeout: '20 minutes',
  heartbeatTimeout: '10 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: {
    initialInterval: '2 seconds',
    maximumAttempts: 3,
    nonRetryableErrorTypes: permanentFailureTypes,
  },
};

/**
 * Writing a discovery's suggested tests: reads the map and the tests, then a model call per 20 suggestions. Few
 * attempts: a failure costs the suggestions, never the discovery.
 */
export const suggestActivity: ActivityOptions = {
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 3 },
};

/**
 * One streamed model call of a chat turn: heartbeats with every flush, so a dead worker is noticed within
 * seconds and the retry rewrites the same assistant message; a cancelled reply waits until streaming stopped.
 */
export const chatLlmActivity: ActivityOptions = {
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '5 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: {
    initialInterval: '1 second',
    maximumInterval: '10 seconds',
    maximumAttempts: 3,
    nonRetryableErrorTypes: [failureTypes.llmNotConfigured],
  },
};

/**
 * A call to the Git provider (comment, review, commit status): a provider outage delays it, for up to a day, and
 * loses nothing; each activity checks what it already posted, so a retry never posts twice.
 */
export const gitActivity: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  scheduleToCloseTimeout: '24 hours',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '5 minutes',
    nonRetryableErrorTypes: permanentFailureTypes,
  },
};
