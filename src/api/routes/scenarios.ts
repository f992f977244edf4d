import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, errorResponses, json, jsonBody, type OpenApiApp } from '../openapi.js';
import { Deleted, name, shortId } from '../../schemas/common.js';
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

const tags = ['Management'];
const base = '/v1/scenarios';

const routes = {
  list: createRoute({
    method: 'get', path: base, tags, security: bearerSecurity,
    summary: 'List scenarios',
    responses: { 200: json(z.object({ scenarios: z.array(ScenarioSchema) }), 'Scenarios of the project'), ...errorResponses },
  }),
  create: createRoute({
    method: 'post', path: base, tags, security: bearerSecurity,
    summary: 'Create a scenario: reusable preconditions and instructions for the agent',
    request: { body: jsonBody(CreateScenario) },
    responses: { 201: json(ScenarioSchema, 'Created'), ...errorResponses },
  }),
  get: createRoute({
    method: 'get', path: `${base}/{scenarioShortId}`, tags, security: bearerSecurity,
    summary: 'Get a scenario',
    request: { params: Params },
    responses: { 200: json(ScenarioSchema, 'The scenario'), ...errorResponses },
  }),
  update: createRoute({
    method: 'patch', path: `${base}/{scenarioShortId}`, tags, security: bearerSecurity,
    summary: 'Update a scenario',
    request: { params: Params, body: jsonBody(UpdateScenario) },
    responses: { 200: json(ScenarioSchema, 'Updated'), ...errorResponses },
  }),
  remove: createRoute({
    method: 'delete', path: `${base}/{scenarioShortId}`, tags, security: bearerSecurity,
    summary: 'Delete a scenario',
    description: 'Test cases that used it keep their steps and no longer have a scenario.',
    request: { params: Params },
    responses: { 200: json(Deleted, 'Deleted'), ...errorResponses },
  }),
};

export function registerScenarios(app: OpenApiApp): void {
  app.openapi(routes.list, async (c) => {
    const { db } = c.get('deps');
    return c.json({ scenarios: await listScenarios(db, c.get('caller').projectId) }, 200);
  });

  app.openapi(routes.create, async (c) => {
    const { db } = c.get('deps');
    const created = await createScenario(db, c.get('caller').projectId, c.req.valid('json'));
    return c.json(created, 201);
  });

  app.openapi(routes.get, async (c) => {
    const { db } = c.get('deps');
    const { id: _id, ...view } = await requireScenario(db, c.get('caller').projectId, c.req.valid('param').scenarioShortId);
    return c.json(view, 200);
  });

  app.openapi(routes.update, async (c) => {
    const { db } = c.get('deps');
    const { projectId } = c.get('caller');
    const { id: _id, ...view } = await updateScenario(db, projectId, c.req.valid('param').scenarioShortId, c.req.valid('json'));
    return c.json(view, 200);
  });

  app.openapi(routes.remove, async (c) => {
    const { db } = c.get('deps');
    await deleteScenario(db, c.get('caller').projectId, c.req.valid('param').scenarioShortId);
    return c.json({ deleted: true as const }, 200);
  });
}
