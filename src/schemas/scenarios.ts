import { z } from '@hono/zod-openapi';
import { name, shortId } from './common.js';

// Request and response shapes of the scenario routes (src/api/routes/scenarios.ts); the dashboard's form validates with them too.

const description = z.string().trim().max(2000).openapi({ example: 'A signed-in customer with one item in the cart' });
const instructions = z
  .string()
  .trim()
  .min(1)
  .max(20_000)
  .openapi({ example: 'Sign in as {{LOGIN_EMAIL}} with {{LOGIN_PASSWORD}}, then add any product to the cart.' });

export const CreateScenario = z
  .object({
    name: name(80).openapi({ example: 'Customer with a full cart' }),
    description: description.optional(),
    instructions,
  })
  .openapi('CreateScenario');

export const UpdateScenario = z
  .object({
    name: name(80).optional(),
    description: description.nullable().optional().openapi({ description: 'null clears it' }),
    instructions: instructions.optional(),
  })
  .openapi('UpdateScenario');

export const ScenarioSchema = z
  .object({
    shortId: shortId('scenario'),
    name: z.string().openapi({ example: 'Customer with a full cart' }),
    description: z.string().nullable(),
    instructions: z
      .string()
      .openapi({ description: 'Preconditions and instructions the agent follows before the test goal' }),
    createdAt: z.string().datetime(),
    updatedAt: z.string().datetime(),
  })
  .openapi('Scenario');
