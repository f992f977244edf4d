import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, sendJsonText, errorResponses, json, jsonBody, type OpenApiApp } from '../openapi.js';
import { Deleted, name, shortId } from '../../schemas/common.js';
import { notFound } from '../errors.js';
import {
  createApplication,
  deleteApplication,
  getApplication,
  listApplications,
  updateApplication,
} from '../../db/queries/applications.js';
import { readProjectList } from '../../db/queries/project-lists.js';
import { findEnvironment } from '../../db/queries/environments.js';
import { findDevicePresetId } from '../../db/queries/lookups.js';
import type { DB } from '../../db/database.js';

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

/** The application of the caller's project, or a 404 (also when it belongs to another project). */
export async function requireApplication(db: DB, projectId: string, applicationShortId: string) {
  const application = await getApplication(db, projectId, applicationShortId);
  if (!application) throw notFound('Application');
  return application;
}

export function registerApplications(app: OpenApiApp): void {
  app.openapi(list, async (c) => {
    const { db } = c.get('deps');
    const { projectId } = c.get('caller');
    const list = await readProjectList(db, projectId, 'applications', async () => ({ applications: await listApplications(db, projectId) }));
    return sendJsonText(c, list);
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
    const application = await requireApplication(db, projectId, c.req.valid('param').applicationShortId);
    const body = c.req.valid('json');
    let defaultEnvironmentId: string | undefined;
    if (body.defaultEnvironmentShortId !== undefined) {
      const environment = await findEnvironment(db, projectId, body.defaultEnvironmentShortId);
      if (!environment || environment.application_id !== application.id) throw notFound('Environment');
      defaultEnvironmentId = environment.id;
    }
    let defaultDevicePresetId: string | null | undefined;
    if (body.defaultDevicePresetShortId !== undefined) {
      defaultDevicePresetId = body.defaultDevicePresetShortId === null ? null : await findDevicePresetId(db, projectId, body.defaultDevicePresetShortId);
      if (defaultDevicePresetId === undefined) throw notFound('Device preset');
    }
    await updateApplication(db, application.id, { name: body.name, defaultEnvironmentId, defaultDevicePresetId });
    const { id: _id, ...view } = await requireApplication(db, projectId, application.shortId);
    return c.json(view, 200);
  });

  app.openapi(remove, async (c) => {
    const { db } = c.get('deps');
    const application = await requireApplication(db, c.get('caller').projectId, c.req.valid('param').applicationShortId);
    await deleteApplication(db, application.id);
    return c.json({ deleted: true as const }, 200);
  });
}
