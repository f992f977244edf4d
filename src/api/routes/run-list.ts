import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, errorResponses, json, type OpenApiApp } from '../openapi.js';
import { shortId } from '../../schemas/common.js';
import { maxRunListLimit, RunListQuery, runStatuses } from '../../schemas/runs.js';
import { listRunViews } from '../../services/run-views.js';

const RunListItem = z
  .object({
    id: z.string().uuid(),
    shortId: shortId('run'),
    url: z.string().url(),
    status: z.enum(runStatuses),
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

const route = createRoute({
  method: 'get',
  path: '/v1/run',
  tags: ['Runs'],
  summary: 'List runs, newest first',
  description: `Filters: \`testPlanShortId\`, \`status\`. \`limit\` defaults to 20 (maximum ${maxRunListLimit}).`,
  security: bearerSecurity,
  request: {
    query: RunListQuery,
  },
  responses: {
    200: json(
      z.object({
        runs: z.array(RunListItem),
        total: z.number().int(),
        limit: z.number().int(),
        offset: z.number().int(),
      }),
      'Runs',
    ),
    ...errorResponses,
  },
});

export function registerRunList(app: OpenApiApp): void {
  app.openapi(route, async (c) => {
    const query = c.req.valid('query');
    const { runs, total } = await listRunViews(c.get('services'), { projectId: c.get('caller').projectId, ...query });
    return c.json({ runs, total, limit: query.limit, offset: query.offset }, 200);
  });
}
