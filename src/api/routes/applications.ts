import type { OpenApiApp } from '../openapi.js';
import { deleted, resourceRoutes, withoutId } from '../resource-routes.js';
import { serveResource } from '../operation-routes.js';
import {
  ApplicationParams,
  ApplicationSchema,
  CreateApplication,
  UpdateApplication,
} from '../../schemas/applications.js';
import {
  applicationListText,
  createApplication,
  removeApplication,
  requireApplication,
  updateApplicationSettings,
} from '../../services/applications.js';

const routes = resourceRoutes({
  path: '/v1/applications/{applicationShortId}',
  tags: ['Management'],
  noun: ['an application', 'applications'],
  schema: ApplicationSchema,
  params: ApplicationParams,
  listKey: 'applications',
  create: { body: CreateApplication, summary: 'Create an application' },
  update: {
    body: UpdateApplication,
    summary: 'Rename an application or change its default environment / device preset',
  },
  remove: { summary: 'Delete an application with its environments and test cases' },
});

export function registerApplications(app: OpenApiApp): void {
  serveResource(app, routes, {
    list: ({ services, projectId }) => applicationListText(services, projectId),
    create: ({ services, projectId, body }) => createApplication(services, projectId, body),
    get: async ({ services, projectId, param }) =>
      withoutId(await requireApplication(services, projectId, param.applicationShortId)),
    update: async ({ services, projectId, param, body }) =>
      withoutId(await updateApplicationSettings(services, projectId, param.applicationShortId, body)),
    remove: async ({ services, projectId, param }) =>
      deleted(await removeApplication(services, projectId, param.applicationShortId)),
  });
}
