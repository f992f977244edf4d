import type { DB } from '../database.js';
import { hashToken } from '../../ids.js';

export interface DashboardSession {
  projectId: string;
  projectName: string;
  organizationName: string;
  tokenId: string;
  csrfSecret: string;
  expiresAt: Date;
}

// The key never changes for a database, so each process reads it once per database (tests open many).
const signingKeys = new WeakMap<DB, Promise<string>>();

/** The newest signing key of the dashboard's session cookies. */
export function sessionSigningKey(db: DB): Promise<string> {
  let key = signingKeys.get(db);
  if (!key) {
    key = db
      .selectFrom('dashboard_signing_keys')
      .select('secret')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
      .then((row) => row.secret);
    key.catch(() => signingKeys.delete(db));
    signingKeys.set(db, key);
  }
  return key;
}

export async function insertSession(
  db: DB,
  input: { sessionId: string; tokenId: string; projectId: string; csrfSecret: string; expiresAt: Date },
): Promise<void> {
  // Sessions nobody signed out of would pile up: each sign-in clears the expired ones.
  await db.deleteFrom('dashboard_sessions').where('expires_at', '<', new Date()).execute();
  await db
    .insertInto('dashboard_sessions')
    .values({
      id_hash: hashToken(input.sessionId),
      token_id: input.tokenId,
      project_id: input.projectId,
      csrf_secret: input.csrfSecret,
      expires_at: input.expiresAt,
    })
    .execute();
}

/**
 * A live session: not expired, its token not revoked, its organization not suspended. Read on every page,
 * uncached, so revoking a token or suspending an organization signs its dashboard sessions out at once.
 */
export async function findSession(db: DB, sessionId: string): Promise<DashboardSession | undefined> {
  const row = await db
    .selectFrom('dashboard_sessions as s')
    .innerJoin('api_tokens as t', 't.id', 's.token_id')
    .innerJoin('projects as p', 'p.id', 's.project_id')
    .innerJoin('organizations as o', 'o.id', 'p.organization_id')
    .select([
      's.project_id',
      's.token_id',
      's.csrf_secret',
      's.expires_at',
      'p.name as project_name',
      'o.name as organization_name',
    ])
    .where('s.id_hash', '=', hashToken(sessionId))
    .where('s.expires_at', '>', new Date())
    .where('t.revoked_at', 'is', null)
    .where('o.suspended_at', 'is', null)
    .executeTakeFirst();
  return (
    row && {
      projectId: row.project_id,
      projectName: row.project_name,
      organizationName: row.organization_name,
      tokenId: row.token_id,
      csrfSecret: row.csrf_secret,
      expiresAt: row.expires_at,
    }
  );
}

export async function deleteSession(db: DB, sessionId: string): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where('id_hash', '=', hashToken(sessionId)).execute();
}
