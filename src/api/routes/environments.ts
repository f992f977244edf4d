import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, ErrorSchema, errorResponses, json, jsonBody, type OpenApiApp } from '../openapi.js';
import { Deleted, name, shortId, httpUrl } from '../../schemas/common.js';
import { EnvironmentAccessInputSchema, EnvironmentAccessSchema } from '../../schemas/environment-access.js';
import { createEnvironment, deleteEnvironment, getEnvironment, listApplicationEnvironments, updateEnvironment } from '../../services/environments.js';

const url = httpUrl().openapi({ example: 'https://staging.shop.example.com' });

export const EnvironmentSchema = z
  .object({
    shortId: shortId('environment'),
    name: z.string().openapi({ example: 'Staging' }),
    url: z.string().nullable(),
    applicationBuildShortId: shortId('build').nullable(),
    isProduction: z.boolean(),
    isDefault: z.boolean().openapi({ description: "The application's default environment (project setting)" }),
    access: EnvironmentAccessSchema,
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
    access: EnvironmentAccessInputSchema.optional(),
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
  .object({ name: name(80).optional(), url: url.optional(), isProduction: z.boolean().optional(), isDefault: z.literal(true).optional(), access: EnvironmentAccessInputSchema.optional() })
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
    return c.json({ environments: await listApplicationEnvironments(db, c.get('caller').projectId, c.req.valid('param').applicationShortId) }, 200);
  });

  app.openapi(routes.create, async (c) => {
    const { db } = c.get('deps');
    const created = await createEnvironment(db, { ...c.req.valid('json'), projectId: c.get('caller').projectId, applicationShortId: c.req.valid('param').applicationShortId });
    return c.json(created, 201);
  });

  app.openapi(routes.get, async (c) => {
    const { db } = c.get('deps');
    return c.json(await getEnvironment(db, { ...c.req.valid('param'), projectId: c.get('caller').projectId }), 200);
  });

  app.openapi(routes.update, async (c) => {
    const { db } = c.get('deps');
    return c.json(await updateEnvironment(db, { ...c.req.valid('param'), projectId: c.get('caller').projectId }, c.req.valid('json')), 200);
  });

  app.openapi(routes.remove, async (c) => {
    const { db } = c.get('deps');
    await deleteEnvironment(db, { ...c.req.valid('param'), projectId: c.get('caller').projectId });
    return c.json({ deleted: true as const }, 200);
  });
}
