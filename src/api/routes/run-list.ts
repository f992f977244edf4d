import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, errorResponses, json, type OpenApiApp } from '../openapi.js';
import { maxOffset, shortId } from '../../schemas/common.js';
import { listRunViews } from '../../services/run-views.js';

const RunListItem = z
  .object({
    id: z.string().uuid(),
    shortId: shortId('run'),
    url: z.string().url(),
    status: z.enum(['INITIATED', 'RUNNING', 'COMPLETED', 'ERROR', 'CANCELLED']),
    result: z.enum(['PASSED', 'FAILED', 'SKIPPED']).nullable(),
    trigger: z.string(),
    branch: z.string().nullable(),
    commitHash: z.string().nullable(),
    testCount: z.number().int(),
    testPlan: z.object({ name: z.string(), shortId: z.string() }).nullable(),
    createdAt: z.string().datetime(),
    startedAt: z.string().datetime().nullable(),
    finishedAt: z.string().datetime().nullable(),
  })
  .openapi('RunListItem');

const maxLimit = 100;

const route = createRoute({
  method: 'get',
  path: '/v1/run',
  tags: ['Runs'],
  summary: 'List runs, newest first',
  description: `Filters: \`testPlanShortId\`, \`status\`. \`limit\` defaults to 20 (maximum ${maxLimit}).`,
  security: bearerSecurity,
  request: {
    query: z.object({
      testPlanShortId: shortId('testPlan').optional(),
      status: z.enum(['INITIATED', 'RUNNING', 'COMPLETED', 'ERROR', 'CANCELLED']).optional(),
      limit: z.coerce.number().int().min(1).max(maxLimit).default(20).openapi({ type: 'integer', minimum: 1, maximum: maxLimit, default: 20 }),
      offset: z.coerce.number().int().min(0).max(maxOffset).default(0).openapi({ type: 'integer', minimum: 0, maximum: maxOffset, default: 0 }),
    }),
  },
  responses: {
    200: json(z.object({ runs: z.array(RunListItem), total: z.number().int(), limit: z.number().int(), offset: z.number().int() }), 'Runs'),
    ...errorResponses,
  },
});

export function registerRunList(app: OpenApiApp): void {
  app.openapi(route, async (c) => {
    const query = c.req.valid('query');
    const { runs, total } = await listRunViews(c.get('deps'), { projectId: c.get('caller').projectId, ...query });
    return c.json({ runs, total, limit: query.limit, offset: query.offset }, 200);
  });
}
