import type { OpenApiApp } from '../openapi.js';
import { deleted, resourceRoutes } from '../resource-routes.js';
import { serveResource } from '../operation-routes.js';
import { pathParams, shortId } from '../../schemas/common.js';
import { CreateGitIntegration, GitIntegrationSchema, UpdateGitIntegration } from '../../schemas/git-integrations.js';
import {
  createGitIntegration,
  deleteGitIntegration,
  getGitIntegration,
  listGitIntegrations,
  updateGitIntegration,
  type CreateGitIntegrationInput,
} from '../../services/git-integrations.js';
import { tokenActor } from '../../services/audit-log.js';

const routes = resourceRoutes({
  path: '/v1/git-integrations/{integrationShortId}',
  tags: ['Git integrations'],
  noun: ['an integration', 'integrations'],
  schema: GitIntegrationSchema,
  params: pathParams({ integrationShortId: shortId('gitIntegration') }),
  listKey: 'integrations',
  list: { summary: "List the project's Git provider integrations (secrets hidden)" },
  create: {
    body: CreateGitIntegration,
    summary: 'Connect the project to GitHub (an App or a token) or GitLab (an access token)',
    description:
      'Pull/merge request reviews read changes and post comments through it. Credentials are checked for shape (a PEM key, an http(s) base URL), not against the provider.',
    conflict: 'The project already has an integration with this provider',
  },
  get: { summary: 'Get an integration (secrets hidden)' },
  update: { body: UpdateGitIntegration, summary: 'Replace credentials, the webhook secret or the base URL' },
  remove: { summary: 'Delete an integration and its stored secrets' },
});

export function registerGitIntegrations(app: OpenApiApp): void {
  serveResource(app, routes, {
    list: async ({ services, projectId }) => ({ integrations: await listGitIntegrations(services, projectId) }),
    create: ({ services, caller, body }) => {
      const input: CreateGitIntegrationInput = 'appId' in body ? { ...body, appId: String(body.appId) } : body;
      return createGitIntegration(services, caller.projectId, input, tokenActor(caller.tokenId));
    },
    get: ({ services, projectId, param }) => getGitIntegration(services, projectId, param.integrationShortId),
    update: ({ services, caller, param, body: { appId, ...patch } }) =>
      updateGitIntegration(
        services,
        caller.projectId,
        param.integrationShortId,
        { ...patch, ...(appId !== undefined && { appId: String(appId) }) },
        tokenActor(caller.tokenId),
      ),
    remove: async ({ services, caller, param }) =>
      deleted(
        await deleteGitIntegration(services, caller.projectId, param.integrationShortId, tokenActor(caller.tokenId)),
      ),
  });
}
