import { z } from '@hono/zod-openapi';
import { gitProvider, repositoryPath, shortId } from './common.js';

// The request shape of saving a repository's merge-request review settings (src/api/routes/merge-request-review-settings.ts),
// which the dashboard's form validates with too, and the settings as the API answers them.

const provider = gitProvider();

export const SaveMergeRequestReviewSettings = z
  .object({
    provider,
    repository: repositoryPath(),
    reviewContext: z.string().max(10_000).nullable().optional(),
    autoRun: z.boolean().optional().openapi({ description: 'Default true' }),
    includeDrafts: z.boolean().optional().openapi({ description: 'Default false' }),
    commentOnOpen: z.boolean().optional().openapi({ description: 'Default false' }),
    environmentMapping: z.record(z.string().min(1).max(200), shortId('application')).optional(),
    handle: z
      .string()
      .trim()
      .regex(/^@?[\w.-]{1,100}$/, 'a handle is letters, digits, `.`, `_` or `-`')
      .optional()
      .openapi({ example: '@proctor', description: 'Default `@proctor`' }),
  })
  .strict()
  .openapi('SaveMergeRequestReviewSettings');

/** A repository's review settings as the API shows them (`webhookProblem` only in the answer to a save). */
export const MergeRequestReviewSettingsSchema = z
  .object({
    id: z.string().uuid(),
    provider,
    repository: z.string().openapi({ example: 'acme/shop' }),
    reviewContext: z
      .string()
      .nullable()
      .openapi({ description: 'Instructions every review of this repository gets (the change review `context`)' }),
    autoRun: z
      .boolean()
      .openapi({ description: 'Review a merge request automatically once its head commit is deployed' }),
    includeDrafts: z.boolean().openapi({ description: 'Review draft merge requests too (skipped by default)' }),
    commentOnOpen: z
      .boolean()
      .openapi({ description: 'Post one comment while waiting for deployments, saying how to start a review by hand' }),
    environmentMapping: z.record(z.string(), z.string()).openapi({
      example: { preview: 'app_k3x9m2p4q8r1' },
      description:
        "Provider environment name -> application short id: that application is tested at the environment's deployment URL. Empty: any deployment of the commit.",
    }),
    handle: z.string().openapi({
      example: '@proctor',
      description: 'A comment mentioning it (case-insensitive) with a URL starts a review against that URL',
    }),
    webhookUrl: z.string().openapi({
      example: 'https://proctor.example.com/webhooks/gitlab',
      description: 'Where the provider delivers events',
    }),
    webhookId: z.string().nullable().openapi({ description: 'GitLab: the project hook created or refreshed on save' }),
    updatedAt: z.string().datetime(),
    webhookProblem: z.string().optional().openapi({
      description:
        'Only when saving: GitLab could not be reached to create or refresh the hook; the settings are saved, save again',
    }),
  })
  .openapi('MergeRequestReviewSettings');
