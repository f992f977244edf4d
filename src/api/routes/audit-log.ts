import { createRoute } from '@hono/zod-openapi';
import { bearerSecurity, errorResponses, json, type OpenApiApp } from '../openapi.js';
import { AuditLogPage, AuditLogQuery, maxAuditLogLimit } from '../../schemas/audit-log.js';
import { listAuditLog } from '../../services/audit-log.js';

const route = createRoute({
  method: 'get',
  path: '/v1/audit-log',
  tags: ['Management'],
  summary: "The project's audit log, newest first",
  description:
    'Dashboard sign-ins (succeeded and failed; never the token), API token changes, Git integration changes, heal proposal ' +
    'decisions, quarantine decisions and project settings changes, each with who acted and when. ' +
    `Filters: \`kind\`, \`since\`. \`limit\` defaults to 50 (maximum ${maxAuditLogLimit}).`,
  security: bearerSecurity,
  request: { query: AuditLogQuery },
  responses: { 200: json(AuditLogPage, 'Events'), ...errorResponses },
});

export function registerAuditLog(app: OpenApiApp): void {
  app.openapi(route, async (c) => {
    const query = c.req.valid('query');
    const { events, total } = await listAuditLog(c.get('services'), c.get('caller').projectId, {
      kind: query.kind && [query.kind],
      since: query.since === undefined ? undefined : new Date(query.since),
      limit: query.limit,
      offset: query.offset,
    });
    return c.json({ events, total, limit: query.limit, offset: query.offset }, 200);
  });
}
