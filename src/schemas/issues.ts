import { z } from '@hono/zod-openapi';
import { pageLimit, pageOffset, pathParams, uuid } from './common.js';
import { issueStatuses, severities, signalKinds } from '../domain/quality.js';

/** The most issues one page of `GET /v1/issues` holds. */
export const maxIssuesLimit = 200;

export const IssuesQuery = z.object({
  status: z.enum(issueStatuses).optional().openapi({ description: 'Only issues in this status', example: 'open' }),
  kind: z.enum(signalKinds).optional().openapi({ description: 'Only issues of this kind', example: 'a11y' }),
  severity: z.enum(severities).optional().openapi({ description: 'Only issues of this severity', example: 'critical' }),
  limit: pageLimit(maxIssuesLimit, 50),
  offset: pageOffset(),
});

export const IssueIdParams = pathParams({ id: uuid() });

export const IssueSchema = z
  .object({
    id: z.string().uuid(),
    kind: z.enum(signalKinds).openapi({
      description:
        '`console` (errors and warnings), `exception` (uncaught), `network` (failed requests), `a11y` (axe-core)',
    }),
    severity: z.enum(severities).openapi({ description: "axe-core's impact scale; the worst seen" }),
    title: z
      .string()
      .openapi({ example: 'label: Form elements must have labels (#email <input id="email" type="email">)' }),
    rule: z
      .string()
      .nullable()
      .openapi({ description: 'a11y: the axe rule id; network: the HTTP status or network error', example: 'label' }),
    page: z.string().openapi({
      description: 'The page template (path, ids taken out) it was first seen on',
      example: '/profile/:id',
    }),
    sampleUrl: z.string().openapi({ description: 'A page URL where it was seen' }),
    status: z.enum(issueStatuses).openapi({
      description:
        "`open`; `resolved` (by hand, or by itself after the project's `issueResolveAfterRuns` clean runs); `ignored` (never reopens)",
    }),
    occurrences: z.number().int().openapi({ description: 'Test executions that saw it' }),
    cleanRuns: z
      .number()
      .int()
      .openapi({ description: 'Passing runs without it, of the tests that saw it, since it was last seen' }),
    pages: z.array(z.string()).openapi({ description: 'Page templates it was seen on (at most 20)' }),
    testCaseIds: z.array(z.string().uuid()).openapi({ description: 'Tests that saw it (at most 20)' }),
    firstSeenAt: z.string().datetime(),
    lastSeenAt: z.string().datetime(),
    resolvedAt: z.string().datetime().nullable(),
    exported: z
      .object({ provider: z.string(), url: z.string() })
      .nullable()
      .openapi({ description: 'Where it was filed (`POST /v1/issues/{id}/export`)' }),
  })
  .openapi('Issue');

export const IssuesPage = z
  .object({ issues: z.array(IssueSchema), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .openapi('Issues');

export const UpdateIssue = z
  .object({ status: z.enum(issueStatuses) })
  .strict()
  .openapi('UpdateIssue');

export const ExportIssue = z
  .object({
    repository: z
      .string()
      .min(3)
      .max(200)
      .regex(/^[\w.-]+(\/[\w.-]+)+$/)
      .openapi({
        description: 'Where to file it: `owner/repo` (GitHub) or the project path (GitLab)',
        example: 'acme/shop',
      }),
    provider: z
      .enum(['github', 'gitlab'])
      .optional()
      .openapi({ description: "Which integration; the project's only one when absent" }),
  })
  .strict()
  .openapi('ExportIssue');

export const ExportedIssue = z
  .object({
    url: z.string().openapi({ example: 'https://github.com/acme/shop/issues/12' }),
    created: z
      .boolean()
      .openapi({ description: 'false: the issue was already filed there (found by its fingerprint marker)' }),
  })
  .openapi('ExportedIssue');

export type IssueView = z.infer<typeof IssueSchema>;
