// Badge tokens from the dashboard: a person makes a README badge URL (a new badge token, shown once, with the
// Markdown around it), sees which badge tokens exist and revokes one. Each change is audited like `proctor admin`'s.
import {
  findActiveBadgeToken,
  isActiveBadgeToken,
  listActiveBadgeTokens,
  type BadgeTokenRow,
} from '../db/queries/badge-tokens.js';
import { findIdByShortId } from '../db/queries/lookups.js';
import type { AuditActor } from '../domain/audit.js';
import { NotFoundError } from '../domain/errors.js';
import { createProjectToken, revokeProjectToken } from './api-tokens.js';
import type { ServiceContext } from './context.js';

export type { BadgeTokenRow };

export interface BadgeLink {
  /** The badge's URL with its token: the only time the token is visible. */
  url: string;
  markdown: string;
  /** The new badge token's id (to revoke it) and the token itself, shown this once. */
  id: string;
  token: string;
}

export const listBadgeTokens = ({ db }: ServiceContext, projectId: string): Promise<BadgeTokenRow[]> =>
  listActiveBadgeTokens(db, projectId);

/**
 * A new badge token and the URL that shows the project's (or one plan's) badge with it. `publicUrl` is where the
 * API is reached from outside: the URL goes into READMEs.
 */
export async function createBadgeLink(
  { db }: ServiceContext,
  input: {
    projectId: string;
    publicUrl: string;
    name: string;
    testPlanShortId?: string;
    label: string;
    actor: AuditActor;
  },
): Promise<BadgeLink> {
  if (input.testPlanShortId && !(await findIdByShortId(db, 'test_plans', input.projectId, input.testPlanShortId))) {
    throw new NotFoundError('testPlanShortId: Test plan');
  }
  const { id, token } = await createProjectToken(
    { db },
    {
      projectId: input.projectId,
      kind: 'badge',
      name: input.name,
      actor: input.actor,
    },
  );
  const query = new URLSearchParams({ token });
  if (input.testPlanShortId) query.set('testPlanShortId', input.testPlanShortId);
  if (input.label !== 'proctor') query.set('label', input.label);
  const url = `${input.publicUrl.replace(/\/$/, '')}/v1/badge.svg?${query}`;
  // Markdown's alt text is plain: brackets would end it early.
  return { url, markdown: `![${input.label.replace(/[[\]]/g, '')}](${url})`, id, token };
}

/** A new badge token as the API answers it: the listed row, plus the token and its badge URL (shown this once). */
export async function createBadgeToken(
  { db }: ServiceContext,
  input: Parameters<typeof createBadgeLink>[1],
): Promise<BadgeTokenRow & BadgeLink> {
  const link = await createBadgeLink({ db }, input);
  const row = await findActiveBadgeToken(db, input.projectId, link.id);
  // Revoked in the moment since it was made: the caller still gets its one look at what was made.
  return {
    ...(row ?? {
      id: link.id,
      name: input.name,
      prefix: link.token.slice(0, 8),
      createdAt: new Date(),
      lastUsedAt: null,
    }),
    ...link,
  };
}

/** Revokes one of the project's badge tokens; NotFoundError for an API token or another project's. */
export async function revokeBadgeToken(
  { db }: ServiceContext,
  projectId: string,
  tokenId: string,
  actor: AuditActor,
): Promise<void> {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  if (!uuid.test(tokenId) || !(await isActiveBadgeToken(db, projectId, tokenId)))
    throw new NotFoundError('Badge token');
  await revokeProjectToken({ db }, tokenId, actor);
}
