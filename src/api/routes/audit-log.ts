import type { OpenApiApp } from '../openapi.js';
import { operation, serveResource } from '../operation-routes.js';
import { AuditLogPage, AuditLogQuery, maxAuditLogLimit } from '../../schemas/audit-log.js';
import { listAuditLog } from '../../services/audit-log.js';

const routes = {
  list: operation({
    method: 'get',
    path: '/v1/audit-log',
    tags: ['Management'],
    summary: "The project's audit log, newest first",
    description:
      'Dashboard sign-ins (succeeded and failed; never the token), API token changes, Git integration changes, heal proposal ' +
      'decisions, quarantine decisions and project settings changes, each with who acted and when. ' +
      `Filters: \`kind\`, \`since\`. \`limit\` defaults to 50 (maximum ${maxAuditLogLimit}).`,
    query: AuditLogQuery,
    answers: AuditLogPage,
    answer: 'Events',
  }),
};

export function registerAuditLog(app: OpenApiApp): void {
  serveResource(app, routes, {
    list: async ({ services, projectId, query }) => {
      const { events, total } = await listAuditLog(services, projectId, {
        kind: query.kind && [query.kind],
        since: query.since === undefined ? undefined : new Date(query.since),
        limit: query.limit,
        offset: query.offset,
      });
      return { events, total, limit: query.limit, offset: query.offset };
    },
  });
}
