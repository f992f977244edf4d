import type { OpenApiApp } from '../openapi.js';
import { operation, serveResource } from '../operation-routes.js';
import { resource } from '../resource-routes.js';
import { ApplicationParams } from '../../schemas/applications.js';
import {
  CreateDiscovery,
  DiffQuery,
  DiscoveryDiffSchema,
  DiscoveryMapSchema,
  DiscoveryParams,
  DiscoverySchema,
} from '../../schemas/discoveries.js';
import {
  cancelDiscovery,
  createDiscovery,
  getDiscovery,
  listApplicationDiscoveries,
} from '../../services/discoveries.js';
import { getDiscoveryDiff, getDiscoveryMap } from '../../services/discovery-map.js';

// Discovery (issue 34): Proctor explores an application breadth first and keeps a map of its pages. A discovery
// belongs to an application (listed and asked for under it) and is read by its own short id.

const tags = ['Discovery'];
const item = '/v1/discoveries/{discoveryShortId}';

const discovery = {
  tags,
  noun: ['a discovery', 'discoveries'],
  schema: DiscoverySchema,
  params: DiscoveryParams,
} as const;
const read = resource({ ...discovery, path: item });
const perApplication = resource({
  ...discovery,
  path: '/v1/applications/{applicationShortId}/discoveries/{discoveryShortId}',
  parentParams: ApplicationParams,
});

const routes = {
  list: perApplication.list('discoveries', {
    summary: "List an application's discoveries, newest first",
    returns: 'Discoveries',
  }),
  get: read.get({ summary: 'Get a discovery: status, counts and budget' }),
  create: operation({
    method: 'post',
    path: '/v1/applications/{applicationShortId}/discoveries',
    tags,
    summary: 'Start a discovery of an application',
    description:
      'Explores the environment breadth first in a real browser, on its own origin: it follows links, fills no form and ' +
      'follows no sign-out or delete. Pages are grouped by pattern (`/orders/{id}`), at most two URLs visited per pattern. ' +
      'It stops at the first limit of its budget reached. Poll `GET /v1/discoveries/{discoveryShortId}` until its status ' +
      'is COMPLETED, FAILED or CANCELLED; read the map at `/pages`.',
    params: ApplicationParams,
    body: CreateDiscovery,
    status: 202,
    answers: DiscoverySchema,
    answer: 'Accepted; the discovery is queued',
    unavailable: 'The discovery was saved but could not be handed to the workflow service; it is marked FAILED',
  }),
  pages: operation({
    method: 'get',
    path: `${item}/pages`,
    tags,
    summary: "A discovery's map: page patterns with their pages, titles, forms, actions and the links between them",
    params: DiscoveryParams,
    answers: DiscoveryMapSchema,
    answer: 'The map',
  }),
  diff: operation({
    method: 'get',
    path: `${item}/diff`,
    tags,
    summary: 'Page patterns and forms added, removed or changed since another discovery of the application',
    params: DiscoveryParams,
    query: DiffQuery,
    answers: DiscoveryDiffSchema,
    answer: 'The differences',
  }),
  cancel: operation({
    method: 'post',
    path: `${item}/cancel`,
    tags,
    summary: 'Cancel a discovery: it ends CANCELLED once the pages being visited are closed (409 once it has ended)',
    params: DiscoveryParams,
    status: 202,
    answers: DiscoverySchema,
    answer: 'Cancellation requested',
    conflict: 'The discovery has ended',
  }),
};

export function registerDiscoveries(app: OpenApiApp): void {
  serveResource(app, routes, {
    list: async ({ services, projectId, param }) => ({
      discoveries: await listApplicationDiscoveries(services, projectId, param.applicationShortId),
    }),
    get: ({ services, projectId, param }) => getDiscovery(services, projectId, param.discoveryShortId),
    create: ({ services, projectId, param, body }) =>
      createDiscovery(services, projectId, param.applicationShortId, body),
    pages: ({ services, projectId, param }) => getDiscoveryMap(services, projectId, param.discoveryShortId),
    diff: ({ services, projectId, param, query }) =>
      getDiscoveryDiff(services, projectId, param.discoveryShortId, query.against),
    cancel: ({ services, projectId, param }) => cancelDiscovery(services, projectId, param.discoveryShortId),
  });
}
