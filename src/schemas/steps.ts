// The shapes of a recorded step and of the verifying replay of a burn-in, as the API shows and takes them (a test
// case's steps, step edits, step inserts). Kept apart from test-cases.ts, the test-case routes' own shapes.
import { z } from '@hono/zod-openapi';
import { scrollDirections, stepActions } from '../domain/steps.js';
import { HttpStepSchema } from './http-step.js';
import { EmailStepSchema } from './inbox.js';
import { stepEventFields } from './step-events.js';
import { failureKinds } from '../domain/verdicts.js';

export const StepSchema = z
  .object({
    action: z.enum(stepActions),
    locator: z.string().optional().openapi({ example: "getByRole('button', { name: 'Add to cart' })" }),
    fallbacks: z.array(z.string()).optional().openapi({
      description:
        'Other locators of the same element, tried together with `locator`; a heal puts its locator in front of them',
    }),
    target: z
      .object({
        role: z.string(),
        name: z.string().optional(),
        text: z.string().optional().openapi({
          description:
            'Its whole visible text when recorded (short elements only): the expectation of an element without a name',
        }),
      })
      .optional()
      .openapi({
        description:
          'The element as recorded: every replay compares the element it uses with it (role, name, and for an assertion its expectation)',
      }),
    value: z
      .string()
      .optional()
      .openapi({ description: 'May reference configs as {{NAME}}, substituted only when the step runs' }),
    description: z.string().openapi({ example: 'Add the first product to the cart' }),
    dropTarget: z
      .object({
        locator: z.string(),
        fallbacks: z.array(z.string()).optional(),
        target: z.object({ role: z.string(), name: z.string().optional(), text: z.string().optional() }).optional(),
      })
      .optional()
      .openapi({
        description: "`drag`: the element dropped on, found and compared with its recording like the step's own",
      }),
    scroll: z
      .object({
        direction: z.enum(scrollDirections),
        pixels: z.number().int().positive().max(100_000).optional(),
        untilText: z.string().optional(),
      })
      .optional()
      .openapi({
        description:
          '`scroll` inside the element (a container) instead of scrolling it into view; `untilText` must appear',
      }),
    // Without it here an edit of the steps (PUT /v1/test-cases/{id}/steps) dropped a mail step's subject, timeout,
    // expectations and code shape.
    email: EmailStepSchema.optional().openapi({
      description:
        '`wait_for_email` (its `value` is the address, e.g. `{{INBOX}}`): which mail, how long, what it must hold',
    }),
    http: HttpStepSchema.optional().openapi({
      description: '`http_request`: the API call, what it must answer and the run variables it saves',
    }),
    visual: z
      .object({
        baseline: z
          .string()
          .regex(/^[a-z0-9-]{1,40}$/, 'a baseline name is lowercase letters, digits and "-"')
          .optional()
          .openapi({ description: 'Names the baselines in the blob store; a step added without one gets one' }),
        masks: z.array(z.string().min(1).max(1000)).max(20).optional().openapi({
          description: 'Locators of what changes by nature (a clock, an avatar): painted over before comparing',
        }),
        threshold: z.number().min(0).max(1).optional().openapi({
          description: "How far a pixel's colour may move and still count as the same, 0 to 1 (default 0.1)",
        }),
        maxDiffPixelRatio: z
          .number()
          .min(0)
          .max(1)
          .optional()
          .openapi({ description: 'The share of differing pixels that still passes (default 0)' }),
      })
      .optional()
      .openapi({
        description:
          '`assert_screenshot`: compared with its baseline for the environment and device preset, masks painted over',
      }),
    ...stepEventFields,
    at: z.string().optional().openapi({
      description:
        "The page the step acted on when burn-in recorded it: its path and query (a page off the application's origin: its whole URL); absent on older steps and on steps that act on no page. The coverage map reads it",
      example: '/orders/123',
    }),
  })
  .openapi('Step');

const FailedReplaySchema = z.object({
  failedStepIndex: z
    .number()
    .int()
    .openapi({ description: '0-based index of the failing step; -1 when the start page did not open' }),
  error: z.string(),
  failureKind: z.enum(failureKinds).optional(),
});

export const RecordingCheckSchema = z
  .object({
    status: z.enum(['PASSED', 'FAILED']),
    attempts: z.number().int().min(1).openapi({
      description:
        'Replays done: 1 when the first recording replayed, one more each time the agent recorded again from a failing step (at most 3)',
    }),
    durationMs: z.number().int().min(0).openapi({ description: 'How long the last replay took' }),
    failedStepIndex: z.number().int().optional().openapi({ description: 'FAILED: 0-based index of the failing step' }),
    error: z
      .string()
      .optional()
      .openapi({ example: 'step 2 (scroll): "Select row 250" did not appear while scrolling down for 10000 ms' }),
    failureKind: z.enum(failureKinds).optional(),
    rerecordedAfter: z.array(FailedReplaySchema).openapi({
      description:
        'Earlier replays that failed, after which the agent recorded again from the failing step, oldest first',
    }),
    stepsVersion: z.number().int().optional().openapi({ description: 'The steps version it replayed' }),
  })
  .openapi('RecordingCheck');
