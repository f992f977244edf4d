import type { ActivityDeps } from './deps.js';
import { carriedInbox } from '../src/browser/steps/email-steps.js';
import type { RunValues } from '../src/domain/run-values.js';
import { runInboxVariable, type InboxAccess } from '../src/domain/inbox.js';
import type { BrowserState } from '../src/domain/steps.js';
import { createInboxAccess } from '../src/services/inbox.js';

// A run's inbox across a dependency chain: the root makes `{{INBOX}}` when a step first uses it, and it travels
// with the browser state to the tests that resume from it, so a sign-up and its verify-email dependent share it.

/** The inbox a run's steps use (none when the worker has no inbox domain). */
export function inboxFor(deps: ActivityDeps, projectId: string, signal?: AbortSignal): InboxAccess | undefined {
  return deps.inboxDomain
    ? createInboxAccess({ db: deps.db, blobs: deps.blobs, domain: deps.inboxDomain }, projectId, signal)
    : undefined;
}

/** Takes over the chain's inbox from a dependency's state, if it had one; returns the values for chaining. */
export function adoptInbox(values: RunValues, state: Pick<BrowserState, 'inbox'> | undefined): RunValues {
  if (state?.inbox) values.set(runInboxVariable, state.inbox);
  return values;
}

/** The state to hand on, with the chain's inbox in it. */
export function withInbox(state: BrowserState, values: RunValues): BrowserState {
  const inbox = carriedInbox(values);
  return inbox ? { ...state, inbox } : state;
}

/** `next` with the inbox `previous` used: one test of a chain to the next, in one browser context. */
export function sameInbox(next: RunValues, previous: RunValues | undefined): RunValues {
  return previous ? adoptInbox(next, { inbox: carriedInbox(previous) }) : next;
}
