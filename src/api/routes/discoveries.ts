import { createRoute } from '@hono/zod-openapi';
import { bearerSecurity, ErrorSchema, errorResponses, json, jsonBody, type OpenApiApp } from '../openapi.js';
import { resource, serveResource } from '../resource-routes.js';
import {
  ApplicationParams,
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

const read = resource({
  path: item,
  tags,
  noun: ['a discovery', 'discoveries'],
  schema: DiscoverySchema,
  params: DiscoveryParams,
});
const perApplication = resource({
  path: '/v1/applications/{applicationShortId}/discoveries/{discoveryShortId}',
  tags,
  noun: ['a discovery', 'discoveries'],
  schema: DiscoverySchema,
  params: DiscoveryParams,
  parentParams: ApplicationParams,
});

const routes = {
  list: perApplication.list('discoveries', {
    summary: "List an application's discoveries, newest first",
    returns: 'Discoveries',
  }),
  get: read.get({ summary: 'Get a discovery: status, counts and budget' }),
};

const create = createRoute({
  method: 'post',
  path: '/v1/applications/{applicationShortId}/discoveries',
  tags,
  security: bearerSecurity,
  summary: 'Start a discovery of an application',
  description:
    'Explores the environment breadth first in a real browser, on its own origin: it follows links, fills no form and ' +
    'follows no sign-out or delete. Pages are grouped by pattern (`/orders/{id}`), at most two URLs visited per pattern. ' +
    'It stops at the first limit of its budget reached. Poll `GET /v1/discoveries/{discoveryShortId}` until its status ' +
    'is COMPLETED, FAILED or CANCELLED; read the map at `/pages`.',
  request: { params: ApplicationParams, body: jsonBody(CreateDiscovery) },
  responses: {
    202: json(DiscoverySchema, 'Accepted; the discovery is queued'),
    503: json(
      ErrorSchema,
      'The discovery was saved but could not be handed to the workflow service; it is marked FAILED',
    ),
    ...errorResponses,
  },
});

const pages = createRoute({
  method: 'get',
  path: `${item}/pages`,
  tags,
  security: bearerSecurity,
  summary: "A discovery's map: page patterns with their pages, titles, forms, actions and the links between them",
  request: { params: DiscoveryParams },
  responses: { 200: json(DiscoveryMapSchema, 'The map'), ...errorResponses },
});

const diff = createRoute({
  method: 'get',
  path: `${item}/diff`,
  tags,
  security: bearerSecurity,
  summary: 'Page patterns and forms added, removed or changed since another discovery of the application',
  request: { params: DiscoveryParams, query: DiffQuery },
  responses: { 200: json(DiscoveryDiffSchema, 'The differences'), ...errorResponses },
});

const cancel = createRoute({
  method: 'post',
  path: `${item}/cancel`,
  tags,
  security: bearerSecurity,
  summary: 'Cancel a discovery: it ends CANCELLED once the pages being visited are closed (409 once it has ended)',
  request: { params: DiscoveryParams },
  responses: {
    202: json(DiscoverySchema, 'Cancellation requested'),
    409: json(ErrorSchema, 'The discovery has ended'),
    ...errorResponses,
  },
});

export function registerDiscoveries(app: OpenApiApp): void {
  app.openapi(create, async (c) => {
    const view = await createDiscovery(
      c.get('services'),
      c.get('caller').projectId,
      c.req.valid('param').applicationShortId,
      c.req.valid('json'),
    );
    return c.json(view, 202);
  });
  serveResource(app, routes, {
    list: async ({ services, projectId, param }) => ({
      discoveries: await listApplicationDiscoveries(services, projectId, param.applicationShortId),
    }),
    get: ({ services, projectId, param }) => getDiscovery(services, projectId, param.discoveryShortId),
  });
  app.openapi(pages, async (c) =>
    c.json(
      await getDiscoveryMap(c.get('services'), c.get('caller').projectId, c.req.valid('param').discoveryShortId),
      200,
    ),
  );
  app.openapi(diff, async (c) =>
    c.json(
      await getDiscoveryDiff(
        c.get('services'),
        c.get('caller').projectId,
        c.req.valid('param').discoveryShortId,
        c.req.valid('query').against,
      ),
      200,
    ),
  );
  app.openapi(cancel, async (c) =>
    c.json(
      await cancelDiscovery(c.get('services'), c.get('caller').projectId, c.req.valid('param').discoveryShortId),
      202,
    ),
  );
}
