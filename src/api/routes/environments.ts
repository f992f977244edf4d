import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, ErrorSchema, errorResponses, json, jsonBody, type OpenApiApp } from '../openapi.js';
import { Deleted, name, shortId, httpUrl } from '../../schemas/common.js';
import { badRequest, notFound } from '../errors.js';
import { requireApplication } from '../../services/applications.js';
import {
  createEnvironment,
  deleteEnvironment,
  findEnvironment,
  getEnvironmentView,
  listEnvironments,
  updateEnvironment,
} from '../../db/queries/environments.js';
import { findBuild } from '../../db/queries/builds.js';

const url = httpUrl().openapi({ example: 'https://staging.shop.example.com' });

export const EnvironmentSchema = z
  .object({
    shortId: shortId('environment'),
    name: z.string().openapi({ example: 'Staging' }),
    url: z.string().nullable(),
    applicationBuildShortId: shortId('build').nullable(),
    isProduction: z.boolean(),
    isDefault: z.boolean().openapi({ description: "The application's default environment (project setting)" }),
    createdAt: z.string().datetime(),
  })
  .openapi('Environment');

const AppParams = z.object({
  applicationShortId: shortId('application').openapi({ param: { name: 'applicationShortId', in: 'path' } }),
});
const EnvParams = AppParams.extend({
  environmentShortId: shortId('environment').openapi({ param: { name: 'environmentShortId', in: 'path' } }),
});

const CreateEnvironment = z
  .object({
    name: name(80).openapi({ example: 'Staging' }),
    url: url.optional(),
    applicationBuildShortId: shortId('build').optional(),
    isProduction: z.boolean().default(false),
    isDefault: z.boolean().default(false).openapi({ description: "Make it the application's default; an application's first environment always is" }),
  })
  .refine((b) => (b.url === undefined) !== (b.applicationBuildShortId === undefined), {
    message: 'exactly one of url or applicationBuildShortId is required',
    path: ['url'],
  })
  .openapi('CreateEnvironment', {
    description: 'Exactly one of `url` (a web environment) or `applicationBuildShortId` (a mobile build)',
    oneOf: [{ required: ['url'] }, { required: ['applicationBuildShortId'] }],
  });

const UpdateEnvironment = z
  .object({ name: name(80).optional(), url: url.optional(), isProduction: z.boolean().optional(), isDefault: z.literal(true).optional() })
  .openapi('UpdateEnvironment');

const tags = ['Management'];
const base = '/v1/applications/{applicationShortId}/environments';

const routes = {
  list: createRoute({
    method: 'get', path: base, tags, security: bearerSecurity,
    summary: "List an application's environments",
    request: { params: AppParams },
    responses: { 200: json(z.object({ environments: z.array(EnvironmentSchema) }), 'Environments'), ...errorResponses },
  }),
  create: createRoute({
    method: 'post', path: base, tags, security: bearerSecurity,
    summary: 'Create an environment (a URL for web, a build for mobile)',
    request: { params: AppParams, body: jsonBody(CreateEnvironment) },
    responses: { 201: json(EnvironmentSchema, 'Created'), ...errorResponses },
  }),
  get: createRoute({
    method: 'get', path: `${base}/{environmentShortId}`, tags, security: bearerSecurity,
    summary: 'Get an environment',
    request: { params: EnvParams },
    responses: { 200: json(EnvironmentSchema, 'The environment'), ...errorResponses },
  }),
  update: createRoute({
    method: 'patch', path: `${base}/{environmentShortId}`, tags, security: bearerSecurity,
    summary: 'Update an environment or make it the default',
    request: { params: EnvParams, body: jsonBody(UpdateEnvironment) },
    responses: { 200: json(EnvironmentSchema, 'Updated'), ...errorResponses },
  }),
  remove: createRoute({
    method: 'delete', path: `${base}/{environmentShortId}`, tags, security: bearerSecurity,
    summary: 'Delete an environment (409 while a test plan uses it)',
    request: { params: EnvParams },
    responses: { 200: json(Deleted, 'Deleted'), ...errorResponses, 409: json(ErrorSchema, 'A test plan still uses this environment') },
  }),
};

export function registerEnvironments(app: OpenApiApp): void {
  app.openapi(routes.list, async (c) => {
    const { db } = c.get('deps');
    const { projectId } = c.get('caller');
    const application = await requireApplication(db, projectId, c.req.valid('param').applicationShortId);
    return c.json({ environments: await listEnvironments(db, projectId, application.id) }, 200);
  });

  app.openapi(routes.create, async (c) => {
    const { db } = c.get('deps');
    const { projectId } = c.get('caller');
    const application = await requireApplication(db, projectId, c.req.valid('param').applicationShortId);
    const body = c.req.valid('json');
    let buildId: string | null = null;
    if (body.applicationBuildShortId) {
      if (application.kind === 'web') throw badRequest('applicationBuildShortId: web applications use a url');
      const build = await findBuild(db, projectId, body.applicationBuildShortId);
      // A build of another application of the project is as unknown here as one of another project.
      if (!build || build.application_id !== application.id) throw notFound('Application build');
      buildId = build.id;
    }
    const shortId = await createEnvironment(db, {
      projectId,
      applicationId: application.id,
      name: body.name,
      url: body.url ?? null,
      buildId,
      isProduction: body.isProduction,
      makeDefault: body.isDefault,
    });
    return c.json((await getEnvironmentView(db, projectId, shortId))!, 201);
  });

  const requireEnvironment = async (projectId: string, params: z.infer<typeof EnvParams>, db: Parameters<typeof findEnvironment>[0]) => {
    const application = await requireApplication(db, projectId, params.applicationShortId);
    const env = await findEnvironment(db, projectId, params.environmentShortId);
    if (!env || env.application_id !== application.id) throw notFound('Environment');
    return { id: env.id, applicationId: application.id, shortId: env.short_id };
  };

  app.openapi(routes.get, async (c) => {
    const { db } = c.get('deps');
    const { projectId } = c.get('caller');
    const env = await requireEnvironment(projectId, c.req.valid('param'), db);
    return c.json((await getEnvironmentView(db, projectId, env.shortId))!, 200);
  });

  app.openapi(routes.update, async (c) => {
    const { db } = c.get('deps');
    const { projectId } = c.get('caller');
    const env = await requireEnvironment(projectId, c.req.valid('param'), db);
    const body = c.req.valid('json');
    await updateEnvironment(db, env, { name: body.name, url: body.url, isProduction: body.isProduction, makeDefault: body.isDefault });
    return c.json((await getEnvironmentView(db, projectId, env.shortId))!, 200);
  });

  app.openapi(routes.remove, async (c) => {
    const { db } = c.get('deps');
    const env = await requireEnvironment(c.get('caller').projectId, c.req.valid('param'), db);
    await deleteEnvironment(db, env);
    return c.json({ deleted: true as const }, 200);
  });
}
