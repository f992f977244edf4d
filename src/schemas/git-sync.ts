import { z } from '@hono/zod-openapi';
import { gitProvider, repositoryPath } from './common.js';

// Git sync (docs/test-case-files.md, "Git sync"): the project's setting, and what the last looks at the folder found.

const provider = gitProvider();

export const SaveGitSyncSettings = z
  .object({
    provider,
    repository: repositoryPath(),
    folder: z
      .string()
      .min(1)
      .max(200)
      .regex(
        /^(?!.*(^|\/)\.\.?(\/|$))[\w.-]+(\/[\w.-]+)*$/,
        'folder must be a relative path of letters, digits, `.`, `_`, `-` and `/`, without `.` or `..` parts and without a leading or trailing `/`',
      )
      .openapi({ example: 'e2e/proctor', description: 'The folder of the test-case files, from the repository root' }),
    branch: z
      .string()
      .min(1)
      .max(200)
      .regex(
        /^(?!\/|.*\/$|.*\/\/|.*\.\.|.*@\{)[\w./-]+$/,
        'branch must be a branch name (letters, digits, `.`, `_`, `-`, `/`)',
      )
      .optional()
      .openapi({ example: 'main', description: "The repository's default branch; default `main`" }),
  })
  .strict()
  .openapi('SaveGitSyncSettings');

export const GitSyncSettingsSchema = z
  .object({
    provider,
    repository: z.string().openapi({ example: 'acme/shop' }),
    folder: z.string().openapi({ example: 'e2e/proctor' }),
    branch: z.string().openapi({ example: 'main' }),
    webhookUrl: z.string().openapi({
      example: 'https://proctor.example.com/webhooks/github',
      description: "Where the provider delivers push events (the integration's webhook secret signs them)",
    }),
    updatedAt: z.string().datetime(),
    webhookProblem: z.string().optional().openapi({
      description:
        'Only when saving: GitLab could not be reached to create or refresh the project hook; the setting is saved, save again',
    }),
  })
  .openapi('GitSyncSettings');

export const GitSyncFileSchema = z
  .object({
    path: z.string().openapi({ example: 'e2e/proctor/checkout.proctor.yaml' }),
    testCaseId: z.string().uuid().nullable(),
    state: z.enum(['in_sync', 'pull_request', 'conflict', 'removed', 'invalid']).openapi({
      description:
        '`pull_request`: Proctor proposed its change in `pullRequestUrl`; `conflict`: both sides changed it since they last agreed (both texts ' +
        'shown, neither written); `removed`: the repository removed the file, the test case is kept; `invalid`: the file fails validation (`reason` ' +
        'names the line), nothing imported',
    }),
    reason: z.string().nullable(),
    pullRequestUrl: z.string().nullable(),
    base: z.string().nullable().openapi({ description: 'The text both sides last agreed on' }),
    ours: z.string().nullable().openapi({ description: "Proctor's text, for a conflict or a proposed change" }),
    theirs: z.string().nullable().openapi({ description: "The repository's text, for a conflict or a refused file" }),
    updatedAt: z.string().datetime(),
  })
  .openapi('GitSyncFile');

export const GitSyncStatusSchema = z
  .object({
    settings: GitSyncSettingsSchema,
    files: z.array(GitSyncFileSchema),
    conflicts: z.number().int().openapi({ description: 'How many files are in conflict' }),
  })
  .openapi('GitSyncStatus');
