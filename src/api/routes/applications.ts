import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, sendJsonText, errorResponses, json, jsonBody, type OpenApiApp } from '../openapi.js';
import { Deleted, name, shortId } from '../../schemas/common.js';
import { applicationListText, createApplication, removeApplication, requireApplication, updateApplicationSettings } from '../../services/applications.js';

export const ApplicationSchema = z
  .object({
    shortId: shortId('application'),
    name: z.string().openapi({ example: 'Shop' }),
    kind: z.enum(['web', 'ios', 'android']),
    defaultEnvironmentShortId: shortId('environment').nullable().openapi({ description: 'Project setting: the environment used when neither the plan nor the run names one' }),
    defaultDevicePresetShortId: shortId('devicePreset').nullable(),
    createdAt: z.string().datetime(),
  })
  .openapi('Application');

const ApplicationParams = z.object({
  applicationShortId: shortId('application').openapi({ param: { name: 'applicationShortId', in: 'path' } }),
});

const CreateApplication = z
  .object({ name: name(80).openapi({ example: 'Shop' }), kind: z.enum(['web', 'ios', 'android']).default('web') })
  .openapi('CreateApplication');

const UpdateApplication = z
  .object({
    name: name(80).optional(),
    defaultEnvironmentShortId: shortId('environment').optional(),
    defaultDevicePresetShortId: shortId('devicePreset').nullable().optional().openapi({ description: 'null falls back to the built-in desktop viewport' }),
  })
  .openapi('UpdateApplication');

const tags = ['Management'];

const list = createRoute({
  method: 'get',
  path: '/v1/applications',
  tags,
  summary: 'List applications',
  security: bearerSecurity,
  responses: { 200: json(z.object({ applications: z.array(ApplicationSchema) }), 'Applications of the project'), ...errorResponses },
});

const create = createRoute({
  method: 'post',
  path: '/v1/applications',
  tags,
  summary: 'Create an application',
  security: bearerSecurity,
  request: { body: jsonBody(CreateApplication) },
  responses: { 201: json(ApplicationSchema, 'Created'), ...errorResponses },
});

const get = createRoute({
  method: 'get',
  path: '/v1/applications/{applicationShortId}',
  tags,
  summary: 'Get an application',
  security: bearerSecurity,
  request: { params: ApplicationParams },
  responses: { 200: json(ApplicationSchema, 'The application'), ...errorResponses },
});

const update = createRoute({
  method: 'patch',
  path: '/v1/applications/{applicationShortId}',
  tags,
  summary: 'Rename an application or change its default environment / device preset',
  security: bearerSecurity,
  request: { params: ApplicationParams, body: jsonBody(UpdateApplication) },
  responses: { 200: json(ApplicationSchema, 'Updated'), ...errorResponses },
});

const remove = createRoute({
  method: 'delete',
  path: '/v1/applications/{applicationShortId}',
  tags,
  summary: 'Delete an application with its environments and test cases',
  security: bearerSecurity,
  request: { params: ApplicationParams },
  responses: { 200: json(Deleted, 'Deleted'), ...errorResponses },
});

export function registerApplications(app: OpenApiApp): void {
  app.openapi(list, async (c) => {
    const { db } = c.get('deps');
    const { projectId } = c.get('caller');
    return sendJsonText(c, await applicationListText(db, projectId));
  });

  app.openapi(create, async (c) => {
    const { db } = c.get('deps');
    return c.json(await createApplication(db, c.get('caller').projectId, c.req.valid('json')), 201);
  });

  app.openapi(get, async (c) => {
    const { db } = c.get('deps');
    const { id: _id, ...view } = await requireApplication(db, c.get('caller').projectId, c.req.valid('param').applicationShortId);
    return c.json(view, 200);
  });

  app.openapi(update, async (c) => {
    const { db } = c.get('deps');
    const { projectId } = c.get('caller');
    const { id: _id, ...view } = await updateApplicationSettings(db, projectId, c.req.valid('param').applicationShortId, c.req.valid('json'));
    return c.json(view, 200);
  });

  app.openapi(remove, async (c) => {
    const { db } = c.get('deps');
    await removeApplication(db, c.get('caller').projectId, c.req.valid('param').applicationShortId);
    return c.json({ deleted: true as const }, 200);
  });
}
