// One mapping from a Git provider's failed call to a domain error, for both clients: what will not change on a
// retry (a missing pull request, refused credentials, a rejected body) is permanent; an outage, a rate limit or
// a network failure is `UnavailableError`, which activities leave to their retry policy.
import { InvalidError, NotFoundError, UnavailableError } from '../domain/errors.js';
import type { GitProviderId } from '../domain/git.js';

/** The provider refused the integration's credentials (401): a wrong key or token, or a revoked one. */
export class CredentialsRefusedError extends InvalidError {
  override readonly name: string = 'CredentialsRefusedError';
}

const providerName: Record<GitProviderId, string> = { github: 'GitHub', gitlab: 'GitLab' };

/** What a failed call saw: the HTTP status (undefined when no answer came), the provider's message, headers. */
export interface FailedCall {
  status?: number;
  message: string;
  headers?: Record<string, string | undefined>;
}

function isRateLimited(call: FailedCall): boolean {
  if (call.status === 429) return true;
  // GitHub answers a primary or secondary rate limit with 403 and says so in headers.
  return (
    call.status === 403 &&
    (call.headers?.['x-ratelimit-remaining'] === '0' || call.headers?.['retry-after'] !== undefined)
  );
}

/**
 * The domain error for a failed provider call. `what` names the thing the call was about, as a user reads it
 * ("Pull request acme/shop#7"), so a 404 says which one is missing.
 */
export function providerError(provider: GitProviderId, what: string, call: FailedCall): Error {
  const name = providerName[provider];
  const detail = call.message ? `: ${call.message}` : '';
  if (call.status === undefined || call.status >= 500 || isRateLimited(call)) {
    const answer = call.status === undefined ? 'could not be reached' : `answered ${call.status}`;
    return new UnavailableError(`${name} ${answer} for ${what}${detail}; the call will be retried`);
  }
  if (call.status === 404)
    return new NotFoundError(
      what,
      `${name} answered 404${detail} (it does not exist, or the integration's credentials cannot see it)`,
    );
  if (call.status === 401)
    return new CredentialsRefusedError(
      `${name} refused the integration's credentials (401) for ${what}${detail}: check the app id and private key, or the token`,
    );
  if (call.status === 403)
    return new InvalidError(
      `${name} denied access (403) to ${what}${detail}: the integration lacks a permission or scope it needs`,
    );
  return new InvalidError(`${name} rejected the request for ${what} (${call.status})${detail}`);
}
