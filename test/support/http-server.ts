import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { freePort } from './net.js';

export interface ServedApp {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  close(): Promise<void>;
}

/** Serves an app over real HTTP on a free loopback port, as `proctor api` would. */
export async function serveOverHttp(app: Pick<Hono, 'fetch'>): Promise<ServedApp> {
  const port = await freePort();
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => resolve(s as Server));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      // fetch keeps connections alive; without this close() waits for them to time out.
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
