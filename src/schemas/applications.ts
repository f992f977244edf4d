import { z } from '@hono/zod-openapi';
import { name, pathParams, shortId } from './common.js';

// Request and response shapes of the application routes (src/api/routes/applications.ts); the dashboard's forms validate with them too.

/** An application in a path; the routes under it (environments, builds, discoveries) extend it. */
export const ApplicationParams = pathParams({ applicationShortId: shortId('application') });

export const CreateApplication = z
  .object({ name: name(80).openapi({ example: 'Shop' }), kind: z.enum(['web', 'ios', 'android']).default('web') })
  .openapi('CreateApplication');

export const UpdateApplication = z
  .object({
    name: name(80).optional(),
    defaultEnvironmentShortId: shortId('environment').optional(),
    defaultDevicePresetShortId: shortId('devicePreset')
      .nullable()
      .optional()
      .openapi({ description: 'null falls back to the built-in desktop viewport' }),
  })
  .openapi('UpdateApplication');

export const ApplicationSchema = z
  .object({
    shortId: shortId('application'),
    name: z.string().openapi({ example: 'Shop' }),
    kind: z.enum(['web', 'ios', 'android']),
    defaultEnvironmentShortId: shortId('environment')
      .nullable()
      .openapi({ description: 'Project setting: the environment used when neither the plan nor the run names one' }),
    defaultDevicePresetShortId: shortId('devicePreset').nullable(),
    createdAt: z.string().datetime(),
  })
  .openapi('Application');
