import { z } from '@hono/zod-openapi';
import { httpUrl, pageLimit, pageOffset, pathParams, shortId, uuid } from './common.js';

// Request shapes of the run routes (src/api/routes/runs.ts), which the MCP run tools take too.

const EnvironmentOverrideSchema = z
  .union([
    z.object({ url: httpUrl(), name: z.string().optional() }).strict(),
    z.object({ shortId: shortId('environment') }).strict(),
    z.object({ applicationBuildShortId: shortId('build') }).strict(),
  ])
  .openapi(
    {
      description:
        'Exactly one form: an ad-hoc `url` (and `name`), an environment `shortId`, or an `applicationBuildShortId`',
    },
    // The strict forms exclude each other, so the document says `oneOf`, as the server means it.
    { unionPreferredType: 'oneOf' },
  );

export const StartRun = z
  .object({
    testPlanShortId: shortId('testPlan').optional().openapi({ description: "Absent: the project's default plan" }),
    applications: z
      .array(
        z.object({
          applicationShortId: shortId('application'),
          environment: EnvironmentOverrideSchema.optional(),
          devicePresetShortId: shortId('devicePreset').optional(),
        }),
      )
      .optional()
      .openapi({ description: 'Per-application overrides; they beat plan parameters, which beat project settings' }),
    trigger: z.string().min(1).max(40).default('API').openapi({ example: 'GITHUB' }),
    actor: z.string().max(200).optional(),
    branch: z.string().max(300).optional(),
    commitHash: z.string().max(100).optional(),
    commitMessage: z.string().max(5000).optional(),
    repository: z.string().max(300).optional(),
    notifications: z
      .array(
        z.object({
          type: z.literal('slack'),
          channel: z.string().min(1),
          notifyOn: z.enum(['failure', 'always']).optional(),
        }),
      )
      .min(1)
      .optional()
      .openapi({ description: "Replaces the plan's chat-tool channel for this run only; an empty array is a 400" }),
  })
  .openapi('StartRun');

export const RunParams = pathParams({ shortId: shortId('run') });
export const RunQuery = z.object({ testCases: z.enum(['failed', 'all']).optional() });

export const Rerun = z
  .object({
    failedOnly: z.literal(true).optional(),
    projectTestCaseIds: z.array(uuid()).min(1).optional(),
  })
  .refine((b) => !(b.failedOnly && b.projectTestCaseIds), {
    message: 'failedOnly and projectTestCaseIds cannot be combined',
    path: ['failedOnly'],
  })
  .openapi('Rerun', {
    description: 'At most one of `failedOnly` and `projectTestCaseIds`; neither reruns every test of the run',
    not: { required: ['failedOnly', 'projectTestCaseIds'] },
  });

export const runStatuses = ['INITIATED', 'RUNNING', 'COMPLETED', 'ERROR', 'CANCELLED'] as const;

/** The most runs one page of `GET /v1/run` holds. */
export const maxRunListLimit = 100;

export const RunListQuery = z.object({
  testPlanShortId: shortId('testPlan').optional(),
  status: z.enum(runStatuses).optional(),
  limit: pageLimit(maxRunListLimit, 20),
  offset: pageOffset(),
});
