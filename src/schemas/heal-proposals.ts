import { z } from '@hono/zod-openapi';
import { StepSchema } from './steps.js';

// Heal proposals: under the project's `review` heal policy a passing run that needed the LLM to re-find an
// element keeps its healed steps as a proposal, and a person applies or drops them. Under either policy a run that
// failed because an element now shows other text (a new locale, new copy) proposes that text as the expectation. Shown by the proposal
// routes (src/api/routes/test-case-steps.ts) and, while pending, on the test case itself.

const HealedStepSchema = z
  .object({
    index: z
      .number()
      .int()
      .openapi({ description: '0-based index into the steps (step N in messages is index N - 1)' }),
    from: z.string().nullable().optional(),
    to: z.string(),
    via: z.enum(['fallback', 'llm', 'expectation', 'baseline']).openapi({
      description:
        '`fallback`: a recorded alternative matched; `llm`: the model re-found the element and the pick was checked; `expectation`: the step failed because its element now shows other text (a new locale or copy), offered as its new expectation and never applied without a person; `baseline`: a visual check failed, its screenshot offered as the new baseline (`from` and `to` name the old and new baselines), never applied without a person',
    }),
    reason: z
      .string()
      .optional()
      .openapi({ description: "The model's justification (llm), or the new text in plain words (expectation)" }),
  })
  .openapi('HealedStep');

export const HealProposalSchema = z
  .object({
    testCaseId: z.string().uuid(),
    basedOnVersion: z.number().int(),
    version: z.number().int().openapi({ description: 'The steps version accepting this proposal creates' }),
    status: z
      .enum(['PENDING', 'ACCEPTED', 'REJECTED', 'SUPERSEDED'])
      .openapi({ description: 'SUPERSEDED: the steps changed before anyone decided' }),
    steps: z.array(StepSchema).openapi({
      description: 'The whole step list: healed locators in front of the recorded ones, which stay as fallbacks',
    }),
    healed: z.array(HealedStepSchema),
    createdAt: z.string().datetime(),
    decidedAt: z.string().datetime().nullable(),
  })
  .openapi('HealProposal');
