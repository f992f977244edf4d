import { z } from '@hono/zod-openapi';
import { name, shortId } from './common.js';

// Request shapes of the application routes (src/api/routes/applications.ts); the dashboard's forms validate with them too.

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
