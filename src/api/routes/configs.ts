import { z } from '@hono/zod-openapi';
import type { OpenApiApp } from '../openapi.js';
import { projectCrud, resourceRoutes, serveResource } from '../resource-routes.js';
import { shortId } from '../../schemas/common.js';
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

const conflict = 'A config with this name already exists in the project';

const routes = resourceRoutes({
  path: '/v1/configs/{configShortId}', tags: ['Management'], noun: ['a config', 'configs'], schema: ConfigSchema, params: Params, listKey: 'configs',
  list: { summary: 'List configs (secret values hidden)', returns: 'Configs of the project, by name' },
  create: { body: CreateConfig, summary: 'Create a named value that tests use, e.g. login credentials', conflict },
  get: { summary: 'Get a config (a secret value is hidden)' },
  update: { body: UpdateConfig, summary: 'Rename a config, replace its value or change whether it is secret', conflict },
  remove: { description: 'Test cases that listed it no longer do; steps that reference {{name}} will fail until a config of that name exists again.' },
});

export function registerConfigs(app: OpenApiApp): void {
  serveResource(app, routes, projectCrud('configs', 'configShortId', { list: listConfigs, create: createConfig, get: requireConfig, update: updateConfig, remove: deleteConfig }));
}
