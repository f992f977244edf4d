import type { OpenApiApp } from '../openapi.js';
import { deleted, resource } from '../resource-routes.js';
import { serveResource } from '../operation-routes.js';
import { BadgeTokenSchema, CreateBadgeToken, CreatedBadgeTokenSchema } from '../../schemas/badge.js';
import { pathParams, uuid } from '../../schemas/common.js';
import { tokenActor } from '../../services/audit-log.js';
import {
  createBadgeToken,
  listBadgeTokens,
  revokeBadgeToken,
  type BadgeTokenRow,
} from '../../services/badge-tokens.js';

// Badge tokens over REST, through the service the dashboard's Settings → Status badge uses: made (the token and
// its badge URL shown once), listed (never the token) and revoked. Only an API token reaches these: a badge token
// is refused with 403 by the API's auth, so a leaked badge URL cannot mint more.

const view = (row: BadgeTokenRow) => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  createdAt: row.createdAt.toISOString(),
  lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
});

const badgeTokens = resource({
  path: '/v1/badge-tokens/{badgeTokenId}',
  tags: ['Management'],
  noun: ['a badge token', 'badge tokens'],
  schema: BadgeTokenSchema,
  params: pathParams({ badgeTokenId: uuid() }),
});

const routes = {
  list: badgeTokens.list('badgeTokens', {
    summary: 'The project’s badge tokens that work, newest first (never the token itself)',
    answer: 'The badge tokens',
  }),
  create: badgeTokens.create(CreateBadgeToken, {
    summary: 'Make a badge token and its badge URL for a README',
    description:
      'A badge token (`prb_…`) only ever shows the status badge (`GET /v1/badge.svg`); the answer carries the token, the badge URL and its ' +
      'Markdown, and is the only time the token is shown. `testPlanShortId` makes the URL show that plan’s latest run, `label` the badge’s ' +
      'left-hand text. Audited as `token.created`. Refused: an unknown field, a name over 80 characters or a label over 64 (400), a test ' +
      'plan of no such id in the project (404).',
    answers: CreatedBadgeTokenSchema,
    answer: 'Made: copy the token or URL now',
  }),
  revoke: badgeTokens.remove({
    summary: 'Revoke a badge token: its badge URL stops working at once',
    description:
      'Audited as `token.revoked`. 404 for an API token’s id, a revoked token or another project’s: API tokens are revoked with `proctor admin revoke-token`.',
    answer: 'Revoked',
  }),
};

export function registerBadgeTokens(app: OpenApiApp): void {
  serveResource(app, routes, {
    list: async ({ services, projectId }) => ({
      badgeTokens: (await listBadgeTokens(services, projectId)).map(view),
    }),
    create: async ({ services, caller, body }) => {
      const made = await createBadgeToken(services, {
        ...body,
        projectId: caller.projectId,
        publicUrl: services.publicUrl,
        actor: tokenActor(caller.tokenId),
      });
      return { ...view(made), token: made.token, url: made.url, markdown: made.markdown };
    },
    revoke: async ({ services, caller, param }) =>
      deleted(
        await revokeBadgeToken(
          services,
          caller.projectId,
          param.badgeTokenId.toLowerCase(),
          tokenActor(caller.tokenId),
        ),
      ),
  });
}
