import { z } from '@hono/zod-openapi';
import { httpUrl, shortId } from './common.js';

// Request and response shapes of the Git integration routes (src/api/routes/git-integrations.ts); the dashboard's Git forms
// validate with them too.

// Secrets are write-only: they go in here and never come out of any endpoint.
const privateKey = z.string().min(1).max(20_000).openapi({
  description: "The GitHub App's private key: the whole .pem file GitHub generated (PKCS#1 or PKCS#8). Write-only.",
  example: '-----BEGIN RSA PRIVATE KEY-----\n…\n-----END RSA PRIVATE KEY-----\n',
});
const appId = z
  .union([
    z.number().int().min(1).max(999_999_999_999),
    z.string().regex(/^([1-9][0-9]{0,11}|Iv[0-9A-Za-z.]{1,40})$/, 'must be the numeric App ID or the Client ID (Iv…)'),
  ])
  .openapi({ description: "The GitHub App's ID (or its Client ID)", example: 123456 });
const token = z
  .string()
  .min(1)
  .max(1_000)
  .openapi({ description: 'The access token. Write-only.', example: 'glpat-…' });
const webhookSecret = z.string().min(1).max(500).openapi({
  description: 'The secret webhook deliveries are signed (GitHub) or tagged (GitLab) with. Write-only.',
  example: 'a-long-random-string',
});
const githubBaseUrl = httpUrl().max(2_000).openapi({
  description:
    "GitHub's REST API root: `https://api.github.com` (the default) or GitHub Enterprise Server's `https://HOST/api/v3`",
  example: 'https://github.acme.internal/api/v3',
});
const gitlabBaseUrl = httpUrl().max(2_000).openapi({
  description:
    'The GitLab instance: `https://gitlab.com` (the default) or a self-managed one (the API is under `/api/v4`)',
  example: 'https://gitlab.acme.internal',
});

const GitHubApp = z
  .object({
    provider: z.literal('github'),
    auth: z.literal('app'),
    appId,
    privateKey,
    webhookSecret: webhookSecret.optional(),
    baseUrl: githubBaseUrl.optional(),
  })
  .openapi('CreateGitHubAppIntegration', {
    description:
      'GitHub as a GitHub App: the installation is found per repository; installation tokens are minted on demand, kept in memory, never stored',
  });

const GitHubToken = z
  .object({
    provider: z.literal('github'),
    auth: z.literal('token'),
    token: token.openapi({
      description:
        'A personal access token or fine-grained token (pull requests, issues, statuses: write). Write-only.',
      example: 'github_pat_…',
    }),
    webhookSecret: webhookSecret.optional(),
    baseUrl: githubBaseUrl.optional(),
  })
  .openapi('CreateGitHubTokenIntegration', { description: 'GitHub with a token; comments are posted as its user' });

const GitLab = z
  .object({
    provider: z.literal('gitlab'),
    token: token.openapi({
      description: 'A project or group access token with the `api` scope. Write-only.',
      example: 'glpat-…',
    }),
    webhookSecret: webhookSecret.optional(),
    baseUrl: gitlabBaseUrl.optional(),
  })
  .openapi('CreateGitLabIntegration', {
    description: 'GitLab with a project or group access token; comments are posted as its bot user',
  });

export const CreateGitIntegration = z
  .discriminatedUnion('provider', [z.discriminatedUnion('auth', [GitHubApp, GitHubToken]), GitLab])
  .openapi('CreateGitIntegration', { description: 'One integration per provider per project' });

export const UpdateGitIntegration = z
  .object({
    auth: z.enum(['app', 'token']).optional().openapi({
      description: 'GitHub only. Switching needs the new credentials in the same request; the old ones are dropped.',
    }),
    appId: appId.optional(),
    privateKey: privateKey.optional(),
    token: token.optional(),
    webhookSecret: webhookSecret
      .nullable()
      .optional()
      .openapi({ description: 'A new secret, or null to remove it. Write-only.' }),
    baseUrl: httpUrl()
      .max(2_000)
      .nullable()
      .optional()
      .openapi({ description: "A new base URL, or null for the provider's public service" }),
  })
  .openapi('UpdateGitIntegration');

export const GitIntegrationSchema = z
  .object({
    shortId: shortId('gitIntegration'),
    provider: z.enum(['github', 'gitlab']),
    auth: z.enum(['app', 'token']),
    appId: z.string().nullable().openapi({ example: '123456' }),
    baseUrl: z
      .string()
      .nullable()
      .openapi({ description: "Null: the provider's public service (api.github.com, gitlab.com)", example: null }),
    hasPrivateKey: z.boolean().openapi({ description: 'A GitHub App private key is stored (never returned)' }),
    hasToken: z.boolean().openapi({ description: 'A token is stored (never returned)' }),
    hasWebhookSecret: z.boolean().openapi({ description: 'A webhook secret is stored (never returned)' }),
    createdAt: z.string().datetime(),
    updatedAt: z.string().datetime(),
  })
  .openapi('GitIntegration');
