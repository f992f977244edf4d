// Who is calling: a project token's owner (API, badge) and the dashboard's sessions, which a project API token
// opens. Used by the API's auth middleware, the badge and the dashboard's sign-in.
import { randomBytes } from 'node:crypto';
import { findTokenOwner, type TokenOwner } from '../db/queries/api-tokens.js';
import {
  deleteSession,
  findSession,
  insertSession,
  sessionSigningKey,
  type DashboardSession,
} from '../db/queries/dashboard-sessions.js';
import type { ServiceContext } from './context.js';

export type { DashboardSession, TokenOwner };

/** The owner of a token (API or badge), cached; undefined for an unknown or revoked one. */
export const tokenOwner = ({ db }: ServiceContext, token: string): Promise<TokenOwner | undefined> =>
  findTokenOwner(db, token);

const randomSecret = () => randomBytes(32).toString('base64url');

/**
 * A new dashboard session for a project API token: only an API token of an organization that is not suspended
 * opens one. The session id goes into the signed cookie; the database keeps its hash.
 */
export async function openDashboardSession(
  { db }: ServiceContext,
  token: string,
  ttlSeconds: number,
): Promise<{ sessionId: string; tokenId: string; projectId: string } | 'invalid' | 'suspended'> {
  const owner = await findTokenOwner(db, token);
  if (!owner || owner.kind !== 'api') return 'invalid';
  if (owner.suspended) return 'suspended';
  const sessionId = randomSecret();
  await insertSession(db, {
    sessionId,
    tokenId: owner.tokenId,
    projectId: owner.projectId,
    csrfSecret: randomSecret(),
    expiresAt: new Date(Date.now() + ttlSeconds * 1000),
  });
  return { sessionId, tokenId: owner.tokenId, projectId: owner.projectId };
}

/** A live session (not expired, its token not revoked, its organization not suspended), read uncached. */
export const findDashboardSession = (
  { db }: ServiceContext,
  sessionId: string,
): Promise<DashboardSession | undefined> => findSession(db, sessionId);

export const closeDashboardSession = ({ db }: ServiceContext, sessionId: string): Promise<void> =>
  deleteSession(db, sessionId);

/** The key the session cookie is signed with (made once per installation). */
export const sessionCookieKey = ({ db }: ServiceContext): Promise<string> => sessionSigningKey(db);
