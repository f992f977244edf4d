import type { OpenApiApp } from '../openapi.js';
import { projectCrud, resourceRoutes } from '../resource-routes.js';
import { serveResource } from '../operation-routes.js';
import { pathParams, shortId } from '../../schemas/common.js';
import { ConfigSchema, CreateConfig, UpdateConfig } from '../../schemas/configs.js';
import { createConfig, deleteConfig, listConfigs, requireConfig, updateConfig } from '../../services/configs.js';

const conflict = 'A config with this name already exists in the project';

const routes = resourceRoutes({
  path: '/v1/configs/{configShortId}',
  tags: ['Management'],
  noun: ['a config', 'configs'],
  schema: ConfigSchema,
  params: pathParams({ configShortId: shortId('config') }),
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
