import { createServer, type Server } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { TunnelEdge } from '../tunnels/edge.js';
import type { createApp } from './app.js';

/**
 * The API's HTTP server (not listening yet). Requests and upgrades for tunnel hostnames, and tunnel clients'
 * WebSockets, go to the tunnel edge; everything else to the app.
 */
export function createApiServer(app: ReturnType<typeof createApp>, edge: TunnelEdge): Server {
  const api = getRequestListener(app.fetch);
  const server = createServer((req, res) => {
    if (!edge.handleRequest(req, res)) void api(req, res);
  });
  server.on('upgrade', (req, socket, head: Buffer) => {
    if (!edge.handleUpgrade(req, socket, head)) socket.destroy();
  });
  return server;
}
