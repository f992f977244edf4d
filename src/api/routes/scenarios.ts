import type { OpenApiApp } from '../openapi.js';
import { projectCrud, resourceRoutes } from '../resource-routes.js';
import { serveResource } from '../operation-routes.js';
import { pathParams, shortId } from '../../schemas/common.js';
import { CreateScenario, ScenarioSchema, UpdateScenario } from '../../schemas/scenarios.js';
import {
  createScenario,
  deleteScenario,
  listScenarios,
  requireScenario,
  updateScenario,
} from '../../services/scenarios.js';

const routes = resourceRoutes({
  path: '/v1/scenarios/{scenarioShortId}',
  tags: ['Management'],
  noun: ['a scenario', 'scenarios'],
  schema: ScenarioSchema,
  params: pathParams({ scenarioShortId: shortId('scenario') }),
  listKey: 'scenarios',
  create: { body: CreateScenario, summary: 'Create a scenario: reusable preconditions and instructions for the agent' },
  update: { body: UpdateScenario },
  remove: { description: 'Test cases that used it keep their steps and no longer have a scenario.' },
});

export function registerScenarios(app: OpenApiApp): void {
  serveResource(
    app,
    routes,
    projectCrud('scenarios', 'scenarioShortId', {
      list: listScenarios,
      create: createScenario,
      get: requireScenario,
      update: updateScenario,
      remove: deleteScenario,
    }),
  );
}
