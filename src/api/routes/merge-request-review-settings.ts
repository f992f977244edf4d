import type { OpenApiApp } from '../openapi.js';
import { pathParams, uuid } from '../../schemas/common.js';
import {
  MergeRequestReviewSettingsSchema,
  SaveMergeRequestReviewSettings,
} from '../../schemas/merge-request-review-settings.js';
import { deleted, resource } from '../resource-routes.js';
import { operation, serveResource } from '../operation-routes.js';
import {
  deleteMergeRequestReviewSettings,
  getMergeRequestReviewSettings,
  listMergeRequestReviewSettings,
  saveMergeRequestReviewSettings,
} from '../../services/merge-request-reviews.js';

const settings = resource({
  path: '/v1/merge-request-review-settings/{id}',
  tags: ['Merge request review'],
  noun: ["a repository's review settings", 'review settings'],
  schema: MergeRequestReviewSettingsSchema,
  params: pathParams({ id: uuid() }),
});

const routes = {
  list: settings.list('settings', {
    summary: "The project's repositories under merge-request review",
    answer: 'Settings, oldest first',
  }),
  // A save is keyed by provider and repository, not by id: a PUT on the collection, outside the standard five.
  save: operation({
    method: 'put',
    path: '/v1/merge-request-review-settings',
    tags: ['Merge request review'],
    summary: 'Create or change the review settings of a repository',
    description:
      'Keyed by provider and repository: a second save changes the fields it names. A repository belongs to one project (409 otherwise). ' +
      'Saving for GitLab creates or refreshes the project webhook (merge request, note, deployment and pipeline events) with a secret token ' +
      "Proctor generates and never returns. For GitHub, the GitHub App's webhook delivers to `webhookUrl`.",
    body: SaveMergeRequestReviewSettings,
    answers: MergeRequestReviewSettingsSchema,
    answer: 'Settings after the save',
    conflict: 'The repository is connected to another project',
  }),
  get: settings.get({ summary: "One repository's review settings", answer: 'Settings' }),
  remove: settings.remove({
    summary: 'Stop reviewing a repository',
    description: 'Later webhook deliveries for it are refused; reviews already running finish.',
  }),
};

export function registerMergeRequestReviewSettings(app: OpenApiApp): void {
  serveResource(app, routes, {
    list: async ({ services, projectId }) => ({
      settings: await listMergeRequestReviewSettings(services, projectId),
    }),
    save: ({ services, projectId, body }) => saveMergeRequestReviewSettings(services, projectId, body),
    get: ({ services, projectId, param }) => getMergeRequestReviewSettings(services, projectId, param.id),
    remove: async ({ services, projectId, param }) =>
      deleted(await deleteMergeRequestReviewSettings(services, projectId, param.id)),
  });
}
