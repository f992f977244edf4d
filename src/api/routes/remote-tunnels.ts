import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, errorResponses, json, jsonBody, type OpenApiApp } from '../openapi.js';
import { Deleted } from '../../schemas/common.js';
import type { AppDeps } from '../context.js';
import { defaultTunnelDomain, subdomainPattern } from '../../domain/tunnels.js';
import { createTunnel, getTunnelStatus, listTunnelViews, removeTunnel } from '../../services/remote-tunnels.js';

const Hostname = z
  .object({
    localPort: z.number().int().openapi({ example: 3000 }),
    url: z.string().openapi({ example: 'http://web-k3x9q2m7p1za.tunnel.example.com' }),
  })
  .openapi('TunnelHostname');

const CreateTunnel = z
  .object({
    ports: z
      .array(
        z.object({
          localPort: z.number().int().min(1).max(65535).openapi({ example: 3000 }),
          protocol: z
            .enum(['http', 'https'])
            .optional()
            .openapi({ description: 'How the tunnel client talks to the local port (default http)' }),
          subdomain: z
            .string()
            .regex(subdomainPattern, 'must be 1 to 32 lower-case letters, digits or inner hyphens')
            .optional()
            .openapi({ description: 'First part of the port’s hostname (default `p<localPort>`)', example: 'web' }),
        }),
      )
      .min(1)
      .max(10),
    public: z
      .boolean()
      .optional()
      .openapi({ description: 'Reachable by anyone who has the URL; otherwise only by Proctor’s agents' }),
  })
  .openapi('CreateRemoteTunnel');

const CreatedTunnel = z
  .object({
    runnerId: z.string().openapi({ example: 'tunnel_k3x9q2m7p1za' }),
    hostnames: z.array(Hostname),
    tunnelToken: z.string().openapi({ description: 'The tunnel client’s secret; shown once', example: 'ptt_…' }),
    expiresAt: z.string().datetime(),
  })
  .openapi('RemoteTunnelCreated');

const Status = z
  .enum(['inactive', 'degraded', 'healthy'])
  .openapi({ description: '0 connections inactive, 1 to 3 degraded, 4 or more healthy' });

const TunnelStatus = z
  .object({
    status: Status,
    connections: z.number().int().openapi({ description: 'Live edge connections' }),
    hostnames: z.array(Hostname),
  })
  .openapi('RemoteTunnelStatus');

const TunnelSummary = z
  .object({
    runnerId: z.string(),
    hostnames: z.array(Hostname),
    public: z.boolean(),
    createdAt: z.string().datetime(),
    expiresAt: z.string().datetime(),
    isExpired: z.boolean(),
    status: Status,
    connections: z.number().int(),
  })
  .openapi('RemoteTunnel');

const RunnerParams = z.object({
  runnerId: z
    .string()
    .regex(/^tunnel_[a-z0-9]+$/, 'must be a tunnel runner id (tunnel_…)')
    .openapi({ param: { name: 'runnerId', in: 'path' }, example: 'tunnel_k3x9q2m7p1za' }),
});

const tags = ['Tunnels'];

const routes = {
  create: createRoute({
    method: 'post',
    path: '/v1/remote-tunnels',
    tags,
    security: bearerSecurity,
    summary: 'Create a remote tunnel to ports on your machine',
    description: 'Returns one hostname per port and the token `proctor tunnel` connects with. A tunnel lives 12 hours.',
    request: { body: jsonBody(CreateTunnel) },
    responses: { 200: json(CreatedTunnel, 'The tunnel'), ...errorResponses },
  }),
  list: createRoute({
    method: 'get',
    path: '/v1/remote-tunnels',
    tags,
    security: bearerSecurity,
    summary: 'List the project’s remote tunnels (expired ones included)',
    responses: { 200: json(z.object({ tunnels: z.array(TunnelSummary) }), 'Tunnels'), ...errorResponses },
  }),
  status: createRoute({
    method: 'get',
    path: '/v1/remote-tunnels/{runnerId}/status',
    tags,
    security: bearerSecurity,
    summary: 'Live status of a remote tunnel',
    request: { params: RunnerParams },
    responses: { 200: json(TunnelStatus, 'Status from the live edge connections'), ...errorResponses },
  }),
  remove: createRoute({
    method: 'delete',
    path: '/v1/remote-tunnels/{runnerId}',
    tags,
    security: bearerSecurity,
    summary: 'Delete a remote tunnel; its client is disconnected and stops',
    request: { params: RunnerParams },
    responses: { 200: json(Deleted, 'Deleted'), ...errorResponses },
  }),
};

// The tunnel domain and this process's edge are the API's own (AppDeps), not a service's context.
const domainOf = (deps: AppDeps): string => deps.tunnels?.domain ?? defaultTunnelDomain;

export function registerRemoteTunnels(app: OpenApiApp): void {
  app.openapi(routes.create, async (c) => {
    const services = c.get('services');
    return c.json(
      await createTunnel(services, domainOf(c.get('deps')), c.get('caller').projectId, c.req.valid('json')),
      200,
    );
  });

  app.openapi(routes.list, async (c) => {
    const services = c.get('services');
    return c.json(
      { tunnels: await listTunnelViews(services, domainOf(c.get('deps')), c.get('caller').projectId) },
      200,
    );
  });

  app.openapi(routes.status, async (c) => {
    const services = c.get('services');
    return c.json(
      await getTunnelStatus(
        services,
        domainOf(c.get('deps')),
        c.get('caller').projectId,
        c.req.valid('param').runnerId,
      ),
      200,
    );
  });

  app.openapi(routes.remove, async (c) => {
    const services = c.get('services');
    const { runnerId } = c.req.valid('param');
    await removeTunnel(services, c.get('caller').projectId, runnerId);
    c.get('deps').tunnels?.edge?.disconnect(runnerId);
    return c.json({ deleted: true as const }, 200);
  });
}
