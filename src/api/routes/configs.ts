import { z } from '@hono/zod-openapi';
import type { OpenApiApp } from '../openapi.js';
import { projectCrud, resourceRoutes } from '../resource-routes.js';
import { serveResource } from '../operation-routes.js';
import { shortId } from '../../schemas/common.js';
import { configType, CreateConfig, UpdateConfig } from '../../schemas/configs.js';
import { createConfig, deleteConfig, listConfigs, requireConfig, updateConfig } from '../../services/configs.js';

export const ConfigSchema = z
  .object({
    shortId: shortId('config'),
    name: z.string().openapi({ example: 'LOGIN_PASSWORD' }),
    value: z.string().nullable().openapi({
      description:
        'The value of a plain config. Always null for a secret: a secret value is write-only and never returned by any endpoint.',
      example: null,
    }),
    isSecret: z.boolean(),
    type: configType,
    hasValue: z.boolean().openapi({
      description: 'Whether a non-empty value is stored (true for a secret that has one, although its value is hidden)',
    }),
    createdAt: z.string().datetime(),
    updatedAt: z.string().datetime(),
  })
  .openapi('Config');

const Params = z.object({
  configShortId: shortId('config').openapi({ param: { name: 'configShortId', in: 'path' } }),
});

const conflict = 'A config with this name already exists in the project';

const routes = resourceRoutes({
  path: '/v1/configs/{configShortId}',
  tags: ['Management'],
  noun: ['a config', 'configs'],
  schema: ConfigSchema,
  params: Params,
  listKey: 'configs',
  list: { summary: 'List configs (secret values hidden)', returns: 'Configs of the project, by name' },
  create: { body: CreateConfig, summary: 'Create a named value that tests use, e.g. login credentials', conflict },
  get: { summary: 'Get a config (a secret value is hidden)' },
  update: {
    body: UpdateConfig,
    summary: 'Rename a config, replace its value or change whether it is secret',
    conflict,
  },
  remove: {
    description:
      'Test cases that listed it no longer do; steps that reference {{name}} will fail until a config of that name exists again.',
  },
});

export function registerConfigs(app: OpenApiApp): void {
  serveResource(
    app,
    routes,
    projectCrud('configs', 'configShortId', {
      list: listConfigs,
      create: createConfig,
      get: requireConfig,
      update: updateConfig,
      remove: deleteConfig,
    }),
  );
}
