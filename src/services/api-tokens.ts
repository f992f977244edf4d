// Project tokens as operations that answer for themselves: `proctor admin` creates and revokes them through
// these, and each change goes into the project's audit log (the token's id and name, never the token).
import { createToken, revokeToken } from '../db/queries/admin.js';
import { tokenProjectId } from '../db/queries/audit-log.js';
import type { TokenKind } from '../db/schema.js';
import { cliActor, type AuditActor } from '../domain/audit.js';
import { recordAudit } from './audit-log.js';
import type { ServiceContext } from './context.js';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function createProjectToken(
  { db }: ServiceContext,
  input: { projectId: string; kind: TokenKind; name: string; actor?: AuditActor },
): Promise<{ id: string; token: string }> {
  const created = await createToken(db, input.projectId, input.kind, input.name);
  await recordAudit(
    { db },
    {
      projectId: input.projectId,
      kind: 'token.created',
      actor: input.actor ?? cliActor,
      subject: created.id,
      details: { kind: input.kind, name: input.name },
    },
  );
  return created;
}

/** False when there is no such active token (nothing is recorded then). */
export async function revokeProjectToken(
  { db }: ServiceContext,
  tokenId: string,
  actor: AuditActor = cliActor,
): Promise<boolean> {
  if (!uuidPattern.test(tokenId)) return false;
  const projectId = await tokenProjectId(db, tokenId);
  if (!projectId || !(await revokeToken(db, tokenId))) return false;
  await recordAudit({ db }, { projectId, kind: 'token.revoked', actor, subject: tokenId });
  return true;
}
