import { z } from '@hono/zod-openapi';
import { subdomainPattern } from '../domain/tunnels.js';
import { pathParams } from './common.js';

// Request and response shapes of the remote tunnel routes (src/api/routes/remote-tunnels.ts).

const Hostname = z
  .object({
    localPort: z.number().int().openapi({ example: 3000 }),
    url: z.string().openapi({ example: 'http://web-k3x9q2m7p1za.tunnel.example.com' }),
  })
  .openapi('TunnelHostname');

export const CreateTunnel = z
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

export const CreatedTunnel = z
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

export const TunnelStatus = z
  .object({
    status: Status,
    connections: z.number().int().openapi({ description: 'Live edge connections' }),
    hostnames: z.array(Hostname),
  })
  .openapi('RemoteTunnelStatus');

export const TunnelSummary = z
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

export const RunnerParams = pathParams({
  runnerId: z
    .string()
    .regex(/^tunnel_[a-z0-9]+$/, 'must be a tunnel runner id (tunnel_…)')
    .openapi({ example: 'tunnel_k3x9q2m7p1za' }),
});
