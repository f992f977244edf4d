import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';

export interface ServedApp {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  close(): Promise<void>;
}

/** Serves an app over real HTTP on a free loopback port, as `proctor api` would. */
export async function serveOverHttp(app: Pick<Hono, 'fetch'>): Promise<ServedApp> {
  // Port 0: the OS picks a free port as it binds (picking one first races with other test files).
  const { server, port } = await new Promise<{ server: Server; port: number }>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
      resolve({ server: s as Server, port: info.port }),
    );
    s.once('error', reject);
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
