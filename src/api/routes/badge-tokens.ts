import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, errorResponses, json, jsonBody, type OpenApiApp } from '../openapi.js';
import { deleted } from '../resource-routes.js';
import { BadgeTokenSchema, CreateBadgeToken, CreatedBadgeTokenSchema } from '../../schemas/badge.js';
import { Deleted, uuid } from '../../schemas/common.js';
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

const tags = ['Management'];
const TokenParam = z.object({ badgeTokenId: uuid().openapi({ param: { name: 'badgeTokenId', in: 'path' } }) });

const view = (row: BadgeTokenRow) => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  createdAt: row.createdAt.toISOString(),
  lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
});

const routes = {
  list: createRoute({
    method: 'get',
    path: '/v1/badge-tokens',
    tags,
    security: bearerSecurity,
    summary: 'The project’s badge tokens that work, newest first (never the token itself)',
    responses: {
      200: json(z.object({ badgeTokens: z.array(BadgeTokenSchema) }), 'The badge tokens'),
      ...errorResponses,
    },
  }),
  create: createRoute({
    method: 'post',
    path: '/v1/badge-tokens',
    tags,
    security: bearerSecurity,
    summary: 'Make a badge token and its badge URL for a README',
    description:
      'A badge token (`prb_…`) only ever shows the status badge (`GET /v1/badge.svg`); the answer carries the token, the badge URL and its ' +
      'Markdown, and is the only time the token is shown. `testPlanShortId` makes the URL show that plan’s latest run, `label` the badge’s ' +
      'left-hand text. Audited as `token.created`. Refused: an unknown field, a name over 80 characters or a label over 64 (400), a test ' +
      'plan of no such id in the project (404).',
    request: { body: jsonBody(CreateBadgeToken) },
    responses: { 201: json(CreatedBadgeTokenSchema, 'Made: copy the token or URL now'), ...errorResponses },
  }),
  revoke: createRoute({
    method: 'delete',
    path: '/v1/badge-tokens/{badgeTokenId}',
    tags,
    security: bearerSecurity,
    summary: 'Revoke a badge token: its badge URL stops working at once',
    description:
      'Audited as `token.revoked`. 404 for an API token’s id, a revoked token or another project’s: API tokens are revoked with `proctor admin revoke-token`.',
    request: { params: TokenParam },
    responses: { 200: json(Deleted, 'Revoked'), ...errorResponses },
  }),
};

export function registerBadgeTokens(app: OpenApiApp): void {
  app.openapi(routes.list, async (c) => {
    const tokens = await listBadgeTokens(c.get('services').db, c.get('caller').projectId);
    return c.json({ badgeTokens: tokens.map(view) }, 200);
  });
  app.openapi(routes.create, async (c) => {
    const { services, caller } = { services: c.get('services'), caller: c.get('caller') };
    const made = await createBadgeToken(services.db, {
      ...c.req.valid('json'),
      projectId: caller.projectId,
      publicUrl: services.publicUrl,
      actor: tokenActor(caller.tokenId),
    });
    return c.json({ ...view(made), token: made.token, url: made.url, markdown: made.markdown }, 201);
  });
  app.openapi(routes.revoke, async (c) => {
    const caller = c.get('caller');
    await revokeBadgeToken(
      c.get('services').db,
      caller.projectId,
      c.req.valid('param').badgeTokenId.toLowerCase(),
      tokenActor(caller.tokenId),
    );
    return c.json(deleted(), 200);
  });
}
