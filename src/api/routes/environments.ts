import type { OpenApiApp } from '../openapi.js';
import { deleted, resourceRoutes } from '../resource-routes.js';
import { serveResource } from '../operation-routes.js';
import { ApplicationParams } from '../../schemas/applications.js';
import { pathParams, shortId } from '../../schemas/common.js';
import { CreateEnvironment, EnvironmentSchema, UpdateEnvironment } from '../../schemas/environments.js';
import {
  createEnvironment,
  deleteEnvironment,
  getEnvironment,
  listApplicationEnvironments,
  updateEnvironment,
} from '../../services/environments.js';

const EnvironmentParams = ApplicationParams.extend(pathParams({ environmentShortId: shortId('environment') }).shape);

const routes = resourceRoutes({
  path: '/v1/applications/{applicationShortId}/environments/{environmentShortId}',
  tags: ['Management'],
  noun: ['an environment', 'environments'],
  schema: EnvironmentSchema,
  parentParams: ApplicationParams,
  params: EnvironmentParams,
  listKey: 'environments',
  list: { summary: "List an application's environments", returns: 'Environments' },
  create: { body: CreateEnvironment, summary: 'Create an environment (a URL for web, a build for mobile)' },
  update: { body: UpdateEnvironment, summary: 'Update an environment or make it the default' },
  remove: {
    summary: 'Delete an environment (409 while a test plan uses it)',
    conflict: 'A test plan still uses this environment',
  },
});

export function registerEnvironments(app: OpenApiApp): void {
  serveResource(app, routes, {
    list: async ({ services, projectId, param }) => ({
      environments: await listApplicationEnvironments(services, projectId, param.applicationShortId),
    }),
    create: ({ services, projectId, param, body }) =>
      createEnvironment(services, { ...body, projectId, applicationShortId: param.applicationShortId }),
    get: ({ services, projectId, param }) => getEnvironment(services, { ...param, projectId }),
    update: ({ services, projectId, param, body }) => updateEnvironment(services, { ...param, projectId }, body),
    remove: async ({ services, projectId, param }) =>
      deleted(await deleteEnvironment(services, { ...param, projectId })),
  });
}
