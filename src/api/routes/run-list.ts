import type { OpenApiApp } from '../openapi.js';
import { operation, serveResource } from '../operation-routes.js';
import { maxRunListLimit, RunListQuery } from '../../schemas/runs.js';
import { RunListPage } from '../../schemas/run-views.js';
import { listRunViews } from '../../services/run-views.js';

const routes = {
  list: operation({
    method: 'get',
    path: '/v1/run',
    tags: ['Runs'],
    summary: 'List runs, newest first',
    description: `Filters: \`testPlanShortId\`, \`status\`. \`limit\` defaults to 20 (maximum ${maxRunListLimit}).`,
    query: RunListQuery,
    answers: RunListPage,
    answer: 'Runs',
  }),
};

export function registerRunList(app: OpenApiApp): void {
  serveResource(app, routes, {
    list: async ({ services, projectId, query }) => {
      const { runs, total } = await listRunViews(services, { projectId, ...query });
      return { runs, total, limit: query.limit, offset: query.offset };
    },
  });
}
