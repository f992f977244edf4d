import type { DB } from '../database.js';
import type { TokenKind } from '../schema.js';
import { hashToken, newId, newToken } from '../../ids.js';
import { forgetTokenOwners } from './api-tokens.js';

export async function createOrganization(db: DB, name: string): Promise<{ id: string; name: string }> {
  const id = newId();
  await db.insertInto('organizations').values({ id, name }).execute();
  return { id, name };
}

export async function createProject(
  db: DB,
  organizationId: string,
  name: string,
): Promise<{ id: string; name: string }> {
  const org = await db.selectFrom('organizations').select('id').where('id', '=', organizationId).executeTakeFirst();
  if (!org) throw new Error(`organization ${organizationId} not found`);
  const id = newId();
  await db.insertInto('projects').values({ id, organization_id: organizationId, name }).execute();
  return { id, name };
}

/** Creates a token and returns it in clear: the only time it is ever visible. */
export async function createToken(
  db: DB,
  projectId: string,
  kind: TokenKind,
  name = `${kind} token`,
): Promise<{ id: string; token: string }> {
  const project = await db.selectFrom('projects').select('id').where('id', '=', projectId).executeTakeFirst();
  if (!project) throw new Error(`project ${projectId} not found`);
  const token = newToken(kind);
  const id = newId();
  await db
    .insertInto('api_tokens')
    .values({ id, project_id: projectId, kind, name, prefix: token.slice(0, 8), token_hash: hashToken(token) })
    .execute();
  return { id, token };
}

export async function revokeToken(db: DB, tokenId: string): Promise<boolean> {
  const result = await db
    .updateTable('api_tokens')
    .set({ revoked_at: new Date() })
    .where('id', '=', tokenId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  forgetTokenOwners({ tokenId });
  return result.numUpdatedRows > 0n;
}

export async function setOrganizationSuspended(db: DB, organizationId: string, suspended: boolean): Promise<boolean> {
  const result = await db
    .updateTable('organizations')
    .set({ suspended_at: suspended ? new Date() : null })
    .where('id', '=', organizationId)
    .executeTakeFirst();
  // Both ways: a suspension must bite at once, and so must lifting it.
  forgetTokenOwners({ organizationId });
  return result.numUpdatedRows > 0n;
}

export async function listProjects(db: DB) {
  return db
    .selectFrom('projects as p')
    .innerJoin('organizations as o', 'o.id', 'p.organization_id')
    .select([
      'p.id',
      'p.name',
      'o.id as organization_id',
      'o.name as organization_name',
      'o.suspended_at',
      'p.created_at',
    ])
    .orderBy('o.created_at')
    .orderBy('p.created_at')
    .execute();
}

export async function listOrganizations(db: DB) {
  return db.selectFrom('organizations').selectAll().orderBy('created_at').execute();
}

/** An organization with one project and one API token: what `proctor dev` and the tests start from. */
export async function seedProject(db: DB, names: { organization: string; project: string }) {
  const organization = await createOrganization(db, names.organization);
  const project = await createProject(db, organization.id, names.project);
  const { token, id: tokenId } = await createToken(db, project.id, 'api', 'seed');
  return { organizationId: organization.id, projectId: project.id, token, tokenId };
}
