import { createRoute, z } from '@hono/zod-openapi';
import { makeBadge } from 'badge-maker';
import { ErrorSchema, type OpenApiApp } from '../openapi.js';
import { BadgeQuery } from '../../schemas/badge.js';
import { ApiError } from '../errors.js';
import { tokenOwner } from '../../services/access.js';
import { projectBadgeState } from '../../services/badge.js';
import { recordTokenUse } from '../../services/token-use.js';

const error = (description: string) => ({ description, content: { 'application/json': { schema: ErrorSchema } } });

const route = createRoute({
  method: 'get',
  path: '/v1/badge.svg',
  tags: ['Runs'],
  summary: 'Live status badge of the latest run',
  description:
    'The latest run of the project (or of `testPlanShortId`) as an SVG badge: `passing`, `failing`, `cancelled`, `error`, ' +
    '`running` (a run newer than the last finished one is under way) or `no runs`.\n\n' +
    'Authenticated only by the `token` query parameter, which must be a badge token (`prb_…`): a badge URL ends up in READMEs, ' +
    'so it must never carry an API token. A request with an `Authorization: Bearer` header is refused with 403.\n\n' +
    'Served as `image/svg+xml` rather than `application/octet-stream`: GitHub’s image proxy (camo) does not render ' +
    'octet-stream, and `Cache-Control: no-cache, no-store, max-age=0` keeps it from caching a stale status.',
  request: { query: BadgeQuery },
  responses: {
    200: {
      description: 'The badge',
      headers: { 'Cache-Control': { schema: { type: 'string', example: 'no-cache, no-store, max-age=0' } } },
      content: {
        'image/svg+xml': {
          schema: z.string().openapi({ example: '<svg xmlns="http://www.w3.org/2000/svg" …>…</svg>' }),
        },
      },
    },
    400: error('Invalid query parameters'),
    401: error('Missing or invalid badge token'),
    403: error('An API token instead of a badge token, a Bearer header, or a suspended organization'),
    404: error('Test plan not found (also when it belongs to another project)'),
    500: error('Server error; the message carries the request id'),
  },
});

export function registerBadge(app: OpenApiApp): void {
  app.openapi(route, async (c) => {
    if (c.req.header('authorization') !== undefined) {
      throw new ApiError(403, 'the badge takes its token in the query string, not a Bearer header');
    }
    const { token, testPlanShortId, label } = c.req.valid('query');
    if (!token) throw new ApiError(401, 'Missing badge token: add ?token=prb_… to the badge URL');
    const owner = await tokenOwner(c.get('services'), token);
    if (!owner) throw new ApiError(401, 'Invalid badge token');
    if (owner.kind !== 'badge') {
      throw new ApiError(
        403,
        'An API token must never appear in a badge URL; create a badge token (prb_…) with `proctor admin create-badge-token`',
      );
    }
    if (owner.suspended) throw new ApiError(403, 'The organization of this project is suspended');
    await recordTokenUse(c.get('deps'), owner.tokenId, c.get('logger'));

    const state = await projectBadgeState(c.get('services'), owner.projectId, testPlanShortId);
    const svg = makeBadge({ label, message: state.message, color: state.color });
    return c.body(svg, 200, {
      'Content-Type': 'image/svg+xml; charset=utf-8',
      'Cache-Control': 'no-cache, no-store, max-age=0',
      // The label is the caller's text: the SVG, opened directly, must not run or load anything.
      'Content-Security-Policy': "default-src 'none'",
      'X-Content-Type-Options': 'nosniff',
    });
  });
}
