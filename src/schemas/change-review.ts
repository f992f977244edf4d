import { z } from '@hono/zod-openapi';
import { ApplicationOverride } from './chat.js';
import { httpUrl, shortId } from './common.js';
import { changeFields } from '../domain/verdicts.js';
import { UsageSchema } from './usage.js';

// Request and response shapes of the change-review routes (src/api/routes/change-review.ts).

// What QA.tech's change-review action sends besides the spec's fields: accepted, stored with the review, shown.
const actionFields = {
  projectShortId: z.string().max(200).optional(),
  actor: z.string().max(200).optional(),
  branch: z.string().max(300).optional(),
  commitHash: z.string().max(100).optional(),
  commitMessage: z.string().max(5_000).optional(),
  repository: z.string().max(300).optional(),
};
export const actionFieldNames = Object.keys(actionFields) as (keyof typeof actionFields)[];

const common = {
  applicationOverrides: z
    .array(ApplicationOverride)
    .max(50)
    .openapi({ description: 'Required: the preview deployments to test (empty: the project defaults)' }),
  context: z
    .string()
    .max(20_000)
    .optional()
    .openapi({ description: 'Instructions for the reviewer (what to focus on)' }),
  ...actionFields,
};

export const ChangeReviewRequest = z
  .discriminatedUnion('mode', [
    z
      .object({
        mode: z.literal('pr'),
        prUrl: httpUrl().openapi({ example: 'https://github.com/acme/shop/pull/42' }),
        vcsProviderId: z.enum(['github', 'gitlab']),
        ...common,
      })
      .openapi('ChangeReviewPrRequest'),
    z
      .object({
        mode: z.literal('rawChanges'),
        changes: z
          .object({
            changeDescription: z.string().min(1).max(20_000),
            diff: z
              .string()
              .min(1)
              .openapi({ description: 'git diff output; binary files are named in the review, not sent to the model' }),
          })
          .openapi('ChangeReviewRawChanges'),
        ...common,
      })
      .openapi('ChangeReviewRawRequest'),
  ])
  .openapi('ChangeReviewRequest');

const VisualChangeFields = {
  stepIndex: z.number().int().openapi({ description: '0-based index of the visual check' }),
  step: z.string().openapi({ description: 'The step in words' }),
  target: z.string().openapi({ description: "The element's locator, or `the page`" }),
  ratio: z.number().min(0).max(1).openapi({ description: 'The share of pixels that differ from the baseline' }),
  diffUrl: z
    .string()
    .nullable()
    .openapi({ description: 'Presigned, expiring link to the diff image (differing pixels in red over the baseline)' }),
  actualUrl: z.string().nullable().openapi({ description: 'Presigned, expiring link to the image the run took' }),
  baselineUrl: z
    .string()
    .nullable()
    .openapi({ description: 'Presigned, expiring link to the baseline it was compared with' }),
  pages: z
    .object({ diff: z.string().nullable(), actual: z.string().nullable(), baseline: z.string().nullable() })
    .openapi({ description: 'The same images on the dashboard, for a signed-in person of the project' }),
};

const VisualChange = z.object(VisualChangeFields).openapi('ChangeReviewVisualChange');

const TestResult = z
  .object({
    testCaseId: z.string(),
    name: z.string(),
    origin: z.enum(['new', 'existing']),
    result: z.enum(['PASSED', 'FAILED', 'VISUAL_CHANGE', 'ERROR', 'SKIPPED', 'NOT_RUN']).openapi({
      description:
        'Extension to the spec: `VISUAL_CHANGE` is a test whose only failures are visual checks that differ from their baselines (listed in `visualChanges`): not a failed test, but the verdict is `Changes Requested` until a person accepts the new image as the baseline or the change is fixed',
    }),
    detail: z
      .string()
      .optional()
      .openapi({ description: 'For a test that did not pass: the failing step and the reason' }),
    url: z.string().url(),
    changes: z
      .array(
        z.object({
          stepIndex: z.number().int(),
          field: z.enum(changeFields),
          from: z.string().nullable(),
          to: z.string().nullable(),
          severity: z.enum(['regression', 'cosmetic']),
          summary: z.string().openapi({ example: 'the checkbox "Select all" lost its accessible name' }),
        }),
      )
      .optional()
      .openapi({
        description:
          'What its run reported changed on the elements its steps used (absent: nothing). A `regression` means the verdict is `Changes Requested`; a `cosmetic` change is a note',
      }),
    quarantined: z
      .boolean()
      .optional()
      .openapi({ description: 'true: quarantined; it ran and reports, but fails nothing and verifies nothing' }),
    notCovered: z.array(z.string()).optional().openapi({
      description: 'Parts of its goal its burn-in could not verify: the review does not count them as tested',
    }),
    visualChanges: z.array(VisualChange).optional().openapi({
      description:
        'Extension to the spec: its visual checks that differ from their baselines (a FAILED test may have some too)',
    }),
  })
  .openapi('ChangeReviewTestResult');

export const ChangeReviewResponse = z
  .object({
    chatShortId: shortId('chat'),
    url: z.string().url(),
    mode: z.enum(['pr', 'rawChanges']),
    source: z.enum(['api', 'github', 'gitlab']),
    state: z.enum(['QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED']),
    phase: z
      .string()
      .nullable()
      .openapi({ description: 'While RUNNING: loading, selecting, creating-tests, running, verdict' }),
    verdict: z.enum(['Approved', 'Changes Requested', 'Comment']).nullable(),
    summary: z.string().nullable(),
    tests: z.array(TestResult),
    runShortId: shortId('run').nullable(),
    runUrl: z.string().url().nullable(),
    change: z
      .object({
        title: z.string(),
        url: z.string().nullable(),
        headSha: z.string().nullable(),
        fileCount: z.number().int(),
      })
      .nullable(),
    prUrl: z.string().nullable(),
    metadata: z
      .record(z.string(), z.string())
      .openapi({ description: 'QA.tech action fields sent with the request (actor, branch, commitHash, …)' }),
    failureReason: z.string().nullable(),
    createdAt: z.string().datetime(),
    completedAt: z.string().datetime().nullable(),
    visualChanges: z.array(z.object({ testCaseId: z.string(), testName: z.string(), ...VisualChangeFields })).openapi({
      description:
        "Extension to the spec: every visual change of the review's counted tests, their own kind of finding (not failed tests)",
    }),
    usage: UsageSchema.openapi({
      description:
        "Extension to the spec: the review's own LLM calls (choosing tests, wording the verdict); its new tests' burn-ins are on the test cases",
    }),
  })
  .openapi('ChangeReview');
