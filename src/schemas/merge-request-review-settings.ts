import { z } from '@hono/zod-openapi';
import { shortId } from './common.js';

// The request shape of saving a repository's merge-request review settings (src/api/routes/merge-request-review-settings.ts);
// the dashboard's form validates with it too.

const provider = z.enum(['github', 'gitlab']).openapi({ example: 'github' });

export const SaveMergeRequestReviewSettings = z
  .object({
    provider,
    repository: z
      .string()
      .min(3)
      .max(300)
      .regex(
        /^[^\s/]+(\/[^\s/]+)+$/,
        'repository must be `owner/name` (GitHub) or the project path `group/project` (GitLab)',
      )
      .openapi({ example: 'acme/shop', description: '`owner/name` on GitHub; the project path on GitLab' }),
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
