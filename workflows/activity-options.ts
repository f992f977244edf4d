import { ActivityCancellationType, type ActivityOptions } from '@temporalio/workflow';
import { permanentFailureTypes } from './shared.js';

// Named presets instead of options repeated at each call (one place to tune retries and timeouts).

/** Short database reads and writes. */
export const dbActivity: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 10 },
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
