import { z } from '@hono/zod-openapi';
import type { OpenApiApp } from '../openapi.js';
import { projectCrud, resourceRoutes, serveResource } from '../resource-routes.js';
import { name, shortId } from '../../schemas/common.js';
import { createScenario, deleteScenario, listScenarios, requireScenario, updateScenario } from '../../services/scenarios.js';

const description = z.string().trim().max(2000).openapi({ example: 'A signed-in customer with one item in the cart' });
const instructions = z
  .string()
  .trim()
  .min(1)
  .max(20_000)
  .openapi({ example: 'Sign in as {{LOGIN_EMAIL}} with {{LOGIN_PASSWORD}}, then add any product to the cart.' });

export const ScenarioSchema = z
  .object({
    shortId: shortId('scenario'),
    name: z.string().openapi({ example: 'Customer with a full cart' }),
    description: z.string().nullable(),
    instructions: z.string().openapi({ description: 'Preconditions and instructions the agent follows before the test goal' }),
    createdAt: z.string().datetime(),
    updatedAt: z.string().datetime(),
  })
  .openapi('Scenario');

const CreateScenario = z
  .object({
    name: name(80).openapi({ example: 'Customer with a full cart' }),
    description: description.optional(),
    instructions,
  })
  .openapi('CreateScenario');

const UpdateScenario = z
  .object({
    name: name(80).optional(),
    description: description.nullable().optional().openapi({ description: 'null clears it' }),
    instructions: instructions.optional(),
  })
  .openapi('UpdateScenario');

const Params = z.object({
  scenarioShortId: shortId('scenario').openapi({ param: { name: 'scenarioShortId', in: 'path' } }),
});

const routes = resourceRoutes({
  path: '/v1/scenarios/{scenarioShortId}', tags: ['Management'], noun: ['a scenario', 'scenarios'], schema: ScenarioSchema, params: Params, listKey: 'scenarios',
  create: { body: CreateScenario, summary: 'Create a scenario: reusable preconditions and instructions for the agent' },
  update: { body: UpdateScenario },
  remove: { description: 'Test cases that used it keep their steps and no longer have a scenario.' },
});

export function registerScenarios(app: OpenApiApp): void {
  serveResource(app, routes, projectCrud('scenarios', 'scenarioShortId', { list: listScenarios, create: createScenario, get: requireScenario, update: updateScenario, remove: deleteScenario }));
}
