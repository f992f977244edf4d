// How GitHub and GitLab authenticate a webhook delivery, checked in constant time. GitHub signs the exact body
// bytes with HMAC-SHA256 (`X-Hub-Signature-256: sha256=<hex>`); GitLab sends the hook's secret token as is
// (`X-Gitlab-Token`). Both compare SHA-256 digests of the two values, so neither where they differ nor their
// lengths show in the time taken.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { GitProviderId } from '../domain/git.js';

function sameValue(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The `X-Hub-Signature-256` value GitHub sends for `body` signed with `secret`. */
export function githubSignature(secret: string, body: Uint8Array): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * Whether `signature` authenticates `body` under `secret`. The work done is the same whatever the signature holds
 * (an empty signature is compared like any other), so a caller that verifies against a stand-in secret when it
 * has none takes as long as one that has a real secret.
 */
export function signatureMatches(
  provider: GitProviderId,
  secret: string,
  body: Uint8Array,
  signature: string,
): boolean {
  const expected = provider === 'github' ? githubSignature(secret, body) : secret;
  return sameValue(signature, expected);
}
