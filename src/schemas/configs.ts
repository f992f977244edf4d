import { z } from '@hono/zod-openapi';
import { shortId } from './common.js';

// Request and response shapes of the config routes (src/api/routes/configs.ts); the dashboard's forms validate with them too.

// Steps reference a config as {{name}}, so the name must be an identifier.
const configName = z
  .string()
  .min(1)
  .max(80)
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]*$/,
    'must start with a letter or underscore and contain only letters, digits and underscores',
  )
  .openapi({
    pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
    example: 'LOGIN_PASSWORD',
    description: 'Unique in the project; steps reference it as {{name}}',
  });

export const configType = z.enum(['plain', 'totp']).openapi({
  description:
    '`totp`: the value is an otpauth://totp/ URI or a base32 seed; always secret; {{name}} types the code current when the step runs',
});

const configValue = z.string().max(10_000).openapi({ example: 'correct-horse-battery-staple' });

export const CreateConfig = z
  .object({
    name: configName,
    value: configValue,
    isSecret: z
      .boolean()
      .default(false)
      .openapi({ description: 'A secret value is never returned by the API and never shown to the model in clear' }),
    type: configType.default('plain'),
  })
  .openapi('CreateConfig');

export const UpdateConfig = z
  .object({
    name: configName.optional(),
    value: configValue.optional(),
    isSecret: z.boolean().optional().openapi({
      description:
        'Turning a secret into a plain config requires a new `value` in the same request, so the old secret is never revealed',
    }),
    type: configType.optional(),
  })
  .openapi('UpdateConfig');

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
