import type { OpenApiApp } from '../openapi.js';
import { operation, serveResource } from '../operation-routes.js';
import { deleted, resource } from '../resource-routes.js';
import type { AppDeps } from '../context.js';
import { defaultTunnelDomain } from '../../domain/tunnels.js';
import {
  CreatedTunnel,
  CreateTunnel,
  RunnerParams,
  TunnelStatus,
  TunnelSummary,
} from '../../schemas/remote-tunnels.js';
import { createTunnel, getTunnelStatus, listTunnelViews, removeTunnel } from '../../services/remote-tunnels.js';

const tags = ['Tunnels'];
const tunnels = resource({
  path: '/v1/remote-tunnels/{runnerId}',
  tags,
  noun: ['a remote tunnel', 'remote tunnels'],
  schema: TunnelSummary,
  params: RunnerParams,
});

const routes = {
  // Answers 200, not the 201 of resource().create: the status is part of the contract.
  create: operation({
    method: 'post',
    path: '/v1/remote-tunnels',
    tags,
    summary: 'Create a remote tunnel to ports on your machine',
    description: 'Returns one hostname per port and the token `proctor tunnel` connects with. A tunnel lives 12 hours.',
    body: CreateTunnel,
    answers: CreatedTunnel,
    answer: 'The tunnel',
  }),
  list: tunnels.list('tunnels', {
    summary: 'List the project’s remote tunnels (expired ones included)',
    answer: 'Tunnels',
  }),
  status: operation({
    method: 'get',
    path: '/v1/remote-tunnels/{runnerId}/status',
    tags,
    summary: 'Live status of a remote tunnel',
    params: RunnerParams,
    answers: TunnelStatus,
    answer: 'Status from the live edge connections',
  }),
  remove: tunnels.remove({ summary: 'Delete a remote tunnel; its client is disconnected and stops' }),
};

// The tunnel domain and this process's edge are the API's own (AppDeps), not a service's context.
const domainOf = (deps: AppDeps): string => deps.tunnels?.domain ?? defaultTunnelDomain;

export function registerRemoteTunnels(app: OpenApiApp): void {
  serveResource(app, routes, {
    create: ({ services, deps, projectId, body }) => createTunnel(services, domainOf(deps), projectId, body),
    list: async ({ services, deps, projectId }) => ({
      tunnels: await listTunnelViews(services, domainOf(deps), projectId),
    }),
    status: ({ services, deps, projectId, param }) =>
      getTunnelStatus(services, domainOf(deps), projectId, param.runnerId),
    remove: async ({ services, deps, projectId, param }) => {
      await removeTunnel(services, projectId, param.runnerId);
      deps.tunnels?.edge?.disconnect(param.runnerId);
      return deleted();
    },
  });
}
