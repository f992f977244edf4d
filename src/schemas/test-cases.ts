import { z } from '@hono/zod-openapi';
import { name, pageOffset, pathParams, shortId, uuid } from './common.js';
import { RecordingCheckSchema, StepSchema } from './steps.js';
import { HealProposalSchema } from './heal-proposals.js';
import { UsageSchema } from './usage.js';

// Request and response shapes of the test-case routes (src/api/routes/test-cases.ts); a step's shape is steps.ts.

// The API's names of the dependency fields; the test-case service uses them too, so its messages name the fields.
export const resumeFromField = 'resumeFromDependencyProjectTestCaseId';
export const waitForField = 'waitForDependenciesProjectTestCaseIds';

/**
 * A list whose entries must be distinct, documented as `uniqueItems`. Ids (short ids, UUIDs) are compared
 * case-insensitively; free text (labels) as written, which is what `uniqueItems` says.
 */
export const distinctList = <T extends z.ZodString>(
  item: T,
  max: number,
  what: string,
  compare: 'ids' | 'exact' = 'ids',
) => {
  const key = compare === 'ids' ? (entry: string) => entry.toLowerCase() : (entry: string) => entry;
  return z
    .array(item)
    .max(max)
    .superRefine((entries, ctx) => {
      const seen = new Set<string>();
      entries.forEach((entry, i) => {
        if (seen.has(key(entry)))
          ctx.addIssue({ code: 'custom', path: [i], message: `${what} ${entry} is listed more than once` });
        seen.add(key(entry));
      });
    })
    .openapi({ uniqueItems: true });
};

export const goal = z.string().trim().min(1).max(4000).openapi({
  example: 'Add the first product to the cart and pay with the saved card',
  description: 'What the test must achieve, in plain words',
});

export const expectedResult = z.string().trim().max(4000).openapi({
  example: 'The order confirmation page shows an order number',
  description: 'How to tell the goal was reached; an empty string stores none',
});

export const label = z
  .string()
  .trim()
  .min(1)
  .max(50)
  .regex(/^[^,]+$/, 'must not contain a comma (the list filter separates labels with commas)')
  .openapi({ example: 'smoke' });

export const labels = distinctList(label, 20, 'label', 'exact').openapi({
  description:
    'Extension to the spec: free-form tags (case-sensitive, no commas) that `GET /v1/test-cases?labels=` filters on.',
  example: ['smoke', 'checkout'],
});

export const resumeFrom = uuid().openapi({
  description:
    'Id of a test case this one continues from: it runs after that test case and starts with its browser state (cookies, localStorage, ' +
    'sessionStorage). Because browser state only carries over within one application, it must be a test case of the same application.',
});

export const waitFor = distinctList(uuid(), 100, 'test case').openapi({
  description:
    'Ids of test cases that must all finish COMPLETED with result PASSED before this one runs, in a fresh browser session',
});

export const CreateTestCase = z
  .object({
    name: name(80).openapi({ example: 'Checkout with a saved card' }),
    goal,
    applicationShortId: shortId('application').openapi({
      description: 'The application the test case exercises; must belong to the project',
    }),
    expectedResult: expectedResult.optional(),
    configShortIds: distinctList(shortId('config'), 50, 'config')
      .optional()
      .openapi({ description: 'Configs (e.g. credentials) the test may use' }),
    scenarioShortId: shortId('scenario').optional(),
    [resumeFromField]: resumeFrom.optional(),
    [waitForField]: waitFor.optional(),
    labels: labels.optional(),
  })
  .openapi('CreateTestCase');

export const UpdateTestCase = z
  .object({
    name: name(80).optional(),
    goal: goal.optional(),
    expectedResult: expectedResult
      .nullable()
      .optional()
      .openapi({ description: 'null (or an empty string) clears it' }),
    isEnabled: z.boolean().optional().openapi({
      description: 'Whether test plans run it; only a test case whose generation COMPLETED can be enabled',
    }),
    labels: labels.optional().openapi({ description: 'Replaces the whole list; [] removes every label' }),
    [resumeFromField]: resumeFrom
      .nullable()
      .optional()
      .openapi({ description: 'null removes the resume-from dependency' }),
    [waitForField]: waitFor
      .optional()
      .openapi({ description: 'Replaces the whole list; [] removes every wait-for dependency' }),
    quarantined: z.boolean().optional().openapi({
      description:
        'Quarantine by hand: the test still runs and reports, but its failure fails neither a run nor a change review',
    }),
  })
  .openapi('UpdateTestCase');

export const GenerationStatusSchema = z.enum(['GENERATING', 'COMPLETED', 'FAILED']).openapi({
  description:
    '`GENERATING` from creation until burn-in has recorded the steps (`COMPLETED`); `FAILED` when burn-in or starting it failed (see `failureReason`)',
});

export const TestCaseSummarySchema = z
  .object({
    id: z.string().uuid().openapi({ description: 'Used in dependency fields and to rerun specific test cases' }),
    name: z.string().openapi({ example: 'Checkout with a saved card' }),
    isEnabled: z.boolean().openapi({ description: 'Whether test plans run it' }),
    labels: z.array(z.string()),
    classification: z.string().openapi({ example: 'functional' }),
    applicationShortId: shortId('application'),
    applicationName: z.string().openapi({ example: 'Shop' }),
    goal: z.string().nullable(),
    createdAt: z.string().datetime(),
    generationStatus: GenerationStatusSchema,
  })
  .openapi('TestCase');

export const TestCaseDetailSchema = TestCaseSummarySchema.extend({
  expectedResult: z.string().nullable(),
  failureReason: z.string().nullable(),
  configShortIds: z.array(shortId('config')),
  scenarioShortId: shortId('scenario').nullable(),
  [resumeFromField]: z.string().uuid().nullable(),
  [waitForField]: z.array(z.string().uuid()),
  steps: z
    .object({
      version: z.number().int().openapi({ description: 'Increases each time the steps change' }),
      steps: z.array(StepSchema),
    })
    .nullable()
    .openapi({ description: 'The recorded steps; null until burn-in has recorded them' }),
  notCovered: z.array(z.string()).openapi({
    description:
      'Parts of the goal the burn-in agent said it could not verify: a pass of this test does not prove them (empty when none)',
    example: ["the downloaded file's contents"],
  }),
  recordingCheck: RecordingCheckSchema.nullable().openapi({
    description:
      'The verifying replay of its burn-in: before the steps were saved they were replayed in a fresh browser with no model call, as every run replays them (null for a test case recorded before this check existed)',
  }),
  quarantined: z.boolean().openapi({
    description:
      'Quarantined by hand (see `PATCH`); the project rule in `/v1/project/settings` may quarantine it in a run as well',
  }),
  flakeRate: z.number().min(0).max(1).openapi({
    description:
      'Runs that passed only on a retry, over its last finished runs (at most 20; a run that failed on every attempt counts as a run, not as flaky); 0 with none',
    example: 0.15,
  }),
  recentRuns: z.number().int().min(0).openapi({ description: 'Finished runs the flake rate counts (at most 20)' }),
  updatedAt: z.string().datetime(),
}).openapi('TestCaseDetail');

export const CreatedTestCase = z
  .object({
    success: z.boolean(),
    testCase: z.object({
      id: z.string().uuid(),
      name: z.string(),
      url: z.string().url().openapi({
        description: 'Dashboard page of the test case',
        example: 'https://app.proctor.example/test-cases/3f2b8c1e-7d4a-4b6f-9a2e-1c5d8e9f0a7b',
      }),
    }),
  })
  .openapi('CreatedTestCase');

export const ListQuery = z.object({
  applicationShortId: shortId('application')
    .optional()
    .openapi({ description: 'Only test cases of this application; an unknown application is a 404' }),
  labels: z.string().optional().openapi({
    description:
      'Comma-separated labels; a test case matches only when it has ALL of them (case-sensitive; blank entries are ignored)',
    example: 'smoke,checkout',
  }),
  isEnabled: z.enum(['true', 'false']).optional(),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(50)
    .openapi({ description: "Maximum results (default 50, at most 1000, the CLI's range)" }),
  offset: pageOffset().openapi({ description: 'Results to skip (default 0)' }),
});

export const TestCaseList = z
  .object({
    testCases: z.array(TestCaseSummarySchema).openapi({ description: 'Newest first' }),
    total: z.number().int().openapi({ description: 'Number of all matching test cases' }),
    limit: z.number().int(),
    offset: z.number().int(),
  })
  .openapi('TestCaseList');

export const Params = pathParams({ testCaseId: uuid() });

export const TestCaseWithProposalsSchema = TestCaseDetailSchema.extend({
  healProposals: z.array(HealProposalSchema).openapi({
    description:
      'Extension to the spec: heal proposals waiting for a decision, newest first (see `/v1/test-cases/{testCaseId}/steps/proposals` for decided ones ' +
      'and to accept or reject one). Empty unless the `review` heal policy kept one.',
  }),
  usage: UsageSchema.openapi({
    description: "Extension to the spec: what the test's burn-ins cost in LLM calls and tokens",
  }),
}).openapi('TestCaseWithHealProposals');
