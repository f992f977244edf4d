import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, ErrorSchema, errorResponses, json, jsonBody, type OpenApiApp } from '../openapi.js';
import { Deleted, uuid } from '../../schemas/common.js';
import { SaveMergeRequestReviewSettings } from '../../schemas/merge-request-review-settings.js';
import {
  deleteMergeRequestReviewSettings,
  getMergeRequestReviewSettings,
  listMergeRequestReviewSettings,
  saveMergeRequestReviewSettings,
} from '../../services/merge-request-reviews.js';

const provider = z.enum(['github', 'gitlab']).openapi({ example: 'github' });

const Settings = z
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

const IdParams = z.object({ id: uuid().openapi({ param: { name: 'id', in: 'path' } }) });

const tags = ['Merge request review'];
const base = '/v1/merge-request-review-settings';
const routes = {
  list: createRoute({
    method: 'get',
    path: base,
    tags,
    security: bearerSecurity,
    summary: "The project's repositories under merge-request review",
    responses: { 200: json(z.object({ settings: z.array(Settings) }), 'Settings, oldest first'), ...errorResponses },
  }),
  save: createRoute({
    method: 'put',
    path: base,
    tags,
    security: bearerSecurity,
    summary: 'Create or change the review settings of a repository',
    description:
      'Keyed by provider and repository: a second save changes the fields it names. A repository belongs to one project (409 otherwise). ' +
      'Saving for GitLab creates or refreshes the project webhook (merge request, note, deployment and pipeline events) with a secret token ' +
      "Proctor generates and never returns. For GitHub, the GitHub App's webhook delivers to `webhookUrl`.",
    request: { body: jsonBody(SaveMergeRequestReviewSettings) },
    responses: {
      200: json(Settings, 'Settings after the save'),
      409: json(ErrorSchema, 'The repository is connected to another project'),
      ...errorResponses,
    },
  }),
  get: createRoute({
    method: 'get',
    path: `${base}/{id}`,
    tags,
    security: bearerSecurity,
    summary: "One repository's review settings",
    request: { params: IdParams },
    responses: { 200: json(Settings, 'Settings'), ...errorResponses },
  }),
  remove: createRoute({
    method: 'delete',
    path: `${base}/{id}`,
    tags,
    security: bearerSecurity,
    summary: 'Stop reviewing a repository',
    description: 'Later webhook deliveries for it are refused; reviews already running finish.',
    request: { params: IdParams },
    responses: { 200: json(Deleted, 'Deleted'), ...errorResponses },
  }),
};

export function registerMergeRequestReviewSettings(app: OpenApiApp): void {
  app.openapi(routes.list, async (c) =>
    c.json({ settings: await listMergeRequestReviewSettings(c.get('services'), c.get('caller').projectId) }, 200),
  );
  app.openapi(routes.save, async (c) =>
    c.json(
      await saveMergeRequestReviewSettings(c.get('services'), c.get('caller').projectId, c.req.valid('json')),
      200,
    ),
  );
  app.openapi(routes.get, async (c) =>
    c.json(
      await getMergeRequestReviewSettings(c.get('services'), c.get('caller').projectId, c.req.valid('param').id),
      200,
    ),
  );
  app.openapi(routes.remove, async (c) => {
    await deleteMergeRequestReviewSettings(c.get('services'), c.get('caller').projectId, c.req.valid('param').id);
    return c.json({ deleted: true as const }, 200);
  });
}
