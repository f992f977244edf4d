import { z } from '@hono/zod-openapi';
import { maxIntColumn, pathParams } from './common.js';
import { HealProposalSchema } from './heal-proposals.js';
import { StepSchema } from './steps.js';
import { Params } from './test-cases.js';

// Shapes of the routes that change a test case's steps once recorded (src/api/routes/test-case-steps.ts and
// test-case-step-insert.ts): edits, heal proposals, insertions, and stopping a burn-in or an insertion.

export const VersionParams = Params.extend(
  pathParams({ version: z.coerce.number().int().min(1).max(maxIntColumn).openapi({ example: 3 }) }).shape,
);

export const EditSteps = z
  .object({
    basedOnVersion: z.number().int().min(1).max(maxIntColumn).openapi({
      description:
        'The steps version these edits start from (GET /v1/test-cases/{id} `steps.version`): saved only if it is still the current one',
      example: 3,
    }),
    steps: z.array(StepSchema).min(1).max(500).openapi({
      description: 'The whole list, edited: changed values, locators or expectations, steps deleted or reordered',
    }),
  })
  .openapi('EditSteps');

export const SavedStepsVersion = z.object({ version: z.number().int() });

export const HealProposalList = z.object({ proposals: z.array(HealProposalSchema) });

export const StepInsertionSchema = z
  .object({
    id: z.string().uuid(),
    testCaseId: z.string().uuid(),
    status: z.enum(['RUNNING', 'COMPLETED', 'FAILED']),
    at: z.number().int(),
    description: z.string(),
    basedOnVersion: z.number().int().openapi({ description: 'The steps version the step is inserted into' }),
    version: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'COMPLETED: the new steps version holding the inserted steps' }),
    insertedSteps: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'COMPLETED: how many steps the agent recorded for the description' }),
    failureReason: z.string().nullable().openapi({
      description:
        'FAILED: why nothing was saved (a step before the position did not replay, the agent could not record, the steps changed meanwhile)',
    }),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .openapi('StepInsertion');

/** What stopping a burn-in or an insertion answers: FAILED at once when its workflow was already gone. */
export const StopAnswer = z.object({ success: z.literal(true), status: z.enum(['CANCELLING', 'FAILED']) });
