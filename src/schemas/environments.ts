import { z } from '@hono/zod-openapi';
import { httpUrl, name, shortId } from './common.js';
import { EnvironmentAccessInputSchema, EnvironmentAccessSchema } from './environment-access.js';

// Request and response shapes of the environment routes (src/api/routes/environments.ts); the dashboard's forms validate with them too.

const url = httpUrl().openapi({ example: 'https://staging.shop.example.com' });

export const CreateEnvironment = z
  .object({
    name: name(80).openapi({ example: 'Staging' }),
    url: url.optional(),
    applicationBuildShortId: shortId('build').optional(),
    isProduction: z.boolean().default(false),
    isDefault: z
      .boolean()
      .default(false)
      .openapi({ description: "Make it the application's default; an application's first environment always is" }),
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

export const UpdateEnvironment = z
  .object({
    name: name(80).optional(),
    url: url.optional(),
    isProduction: z.boolean().optional(),
    isDefault: z.literal(true).optional(),
    access: EnvironmentAccessInputSchema.optional(),
  })
  .openapi('UpdateEnvironment');

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
