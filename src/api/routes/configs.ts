import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, ErrorSchema, errorResponses, json, jsonBody, type OpenApiApp } from '../openapi.js';
import { Deleted, shortId } from '../../schemas/common.js';
import { createConfig, deleteConfig, listConfigs, requireConfig, updateConfig } from '../../services/configs.js';

// Steps reference a config as {{name}}, so the name must be an identifier.
const configName = z
  .string()
  .min(1)
  .max(80)
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must start with a letter or underscore and contain only letters, digits and underscores')
  .openapi({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$', example: 'LOGIN_PASSWORD', description: 'Unique in the project; steps reference it as {{name}}' });

const configType = z.enum(['plain', 'totp']).openapi({
  description: '`totp`: the value is an otpauth://totp/ URI or a base32 seed; always secret; {{name}} types the code current when the step runs',
});

const configValue = z.string().max(10_000).openapi({ example: 'correct-horse-battery-staple' });

export const ConfigSchema = z
  .object({
    shortId: shortId('config'),
    name: z.string().openapi({ example: 'LOGIN_PASSWORD' }),
    value: z.string().nullable().openapi({
      description: 'The value of a plain config. Always null for a secret: a secret value is write-only and never returned by any endpoint.',
      example: null,
    }),
    isSecret: z.boolean(),
    type: configType,
    hasValue: z.boolean().openapi({ description: 'Whether a non-empty value is stored (true for a secret that has one, although its value is hidden)' }),
    createdAt: z.string().datetime(),
    updatedAt: z.string().datetime(),
  })
  .openapi('Config');

const CreateConfig = z
  .object({
    name: configName,
    value: configValue,
    isSecret: z.boolean().default(false).openapi({ description: 'A secret value is never returned by the API and never shown to the model in clear' }),
    type: configType.default('plain'),
  })
  .openapi('CreateConfig');

const UpdateConfig = z
  .object({
    name: configName.optional(),
    value: configValue.optional(),
    isSecret: z.boolean().optional().openapi({
      description: 'Turning a secret into a plain config requires a new `value` in the same request, so the old secret is never revealed',
    }),
    type: configType.optional(),
  })
  .openapi('UpdateConfig');

const Params = z.object({
  configShortId: shortId('config').openapi({ param: { name: 'configShortId', in: 'path' } }),
});

const conflict = json(ErrorSchema, 'A config with this name already exists in the project');

const tags = ['Management'];
const base = '/v1/configs';

const routes = {
  list: createRoute({
    method: 'get', path: base, tags, security: bearerSecurity,
    summary: 'List configs (secret values hidden)',
    responses: { 200: json(z.object({ configs: z.array(ConfigSchema) }), 'Configs of the project, by name'), ...errorResponses },
  }),
  create: createRoute({
    method: 'post', path: base, tags, security: bearerSecurity,
    summary: 'Create a named value that tests use, e.g. login credentials',
    request: { body: jsonBody(CreateConfig) },
    responses: { 201: json(ConfigSchema, 'Created'), 409: conflict, ...errorResponses },
  }),
  get: createRoute({
    method: 'get', path: `${base}/{configShortId}`, tags, security: bearerSecurity,
    summary: 'Get a config (a secret value is hidden)',
    request: { params: Params },
    responses: { 200: json(ConfigSchema, 'The config'), ...errorResponses },
  }),
  update: createRoute({
    method: 'patch', path: `${base}/{configShortId}`, tags, security: bearerSecurity,
    summary: 'Rename a config, replace its value or change whether it is secret',
    request: { params: Params, body: jsonBody(UpdateConfig) },
    responses: { 200: json(ConfigSchema, 'Updated'), 409: conflict, ...errorResponses },
  }),
  remove: createRoute({
    method: 'delete', path: `${base}/{configShortId}`, tags, security: bearerSecurity,
    summary: 'Delete a config',
    description: 'Test cases that listed it no longer do; steps that reference {{name}} will fail until a config of that name exists again.',
    request: { params: Params },
    responses: { 200: json(Deleted, 'Deleted'), ...errorResponses },
  }),
};

export function registerConfigs(app: OpenApiApp): void {
  app.openapi(routes.list, async (c) => {
    const { db } = c.get('deps');
    return c.json({ configs: await listConfigs(db, c.get('caller').projectId) }, 200);
  });

  app.openapi(routes.create, async (c) => {
    const { db } = c.get('deps');
    const { projectId } = c.get('caller');
    return c.json(await createConfig(db, projectId, c.req.valid('json')), 201);
  });

  app.openapi(routes.get, async (c) => {
    const { db } = c.get('deps');
    const { id: _id, ...view } = await requireConfig(db, c.get('caller').projectId, c.req.valid('param').configShortId);
    return c.json(view, 200);
  });

  app.openapi(routes.update, async (c) => {
    const { db } = c.get('deps');
    const { projectId } = c.get('caller');
    const { id: _id, ...view } = await updateConfig(db, projectId, c.req.valid('param').configShortId, c.req.valid('json'));
    return c.json(view, 200);
  });

  app.openapi(routes.remove, async (c) => {
    const { db } = c.get('deps');
    const { projectId } = c.get('caller');
    await deleteConfig(db, projectId, c.req.valid('param').configShortId);
    return c.json({ deleted: true as const }, 200);
  });
}
