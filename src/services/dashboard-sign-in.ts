// The dashboard's sign-in as one operation: the throttle decides first (src/services/sign-in-throttle.ts), then
// the token opens a session or not, and the attempt goes into the audit log either way. A throttled attempt is
// neither checked nor recorded: it costs the attacker nothing to send, so it must cost us nothing to refuse.
import { openDashboardSession } from './access.js';
import { recordSignIn } from './audit-log.js';
import { signInThrottle } from './sign-in-throttle.js';
import type { ServiceContext } from './context.js';

export type DashboardSignIn =
  | { outcome: 'ok'; sessionId: string; tokenId: string }
  | { outcome: 'invalid' | 'suspended' }
  | { outcome: 'throttled'; by: 'address' | 'prefix'; retryAfterSeconds: number };

export async function signInToDashboard(
  { db }: ServiceContext,
  input: { token: string; clientAddress: string; ttlSeconds: number },
): Promise<DashboardSignIn> {
  const throttle = signInThrottle({ db });
  const verdict = await throttle.check(input.clientAddress, input.token);
  if (!verdict.allowed) return { outcome: 'throttled', by: verdict.by, retryAfterSeconds: verdict.retryAfterSeconds };
  const opened = await openDashboardSession({ db }, input.token.trim(), input.ttlSeconds);
  if (typeof opened === 'string') {
    await throttle.failed(input.clientAddress, input.token);
    await recordSignIn({ db }, input.token, { outcome: opened }, input.clientAddress);
    return { outcome: opened };
  }
  await recordSignIn(
    { db },
    input.token,
    { outcome: 'ok', tokenId: opened.tokenId, projectId: opened.projectId },
    input.clientAddress,
  );
  return { outcome: 'ok', sessionId: opened.sessionId, tokenId: opened.tokenId };
}
