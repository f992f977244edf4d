import { request, type Server } from 'node:http';
import { serve } from '@hono/node-server';
import { freePort } from './net.js';

// The dashboard's sign-in form as a browser posts it, over real HTTP, from a chosen loopback address (the whole
// of 127/8 is local on Linux, so 127.0.0.2 is another client as far as the server can tell).

export interface SignInServer {
  url: string;
  /** Loads /login (its CSRF cookie and field), then posts `token`; answers status, headers and the page. */
  signIn(
    token: string,
    from?: string,
    headers?: Record<string, string>,
  ): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>;
  close(): Promise<void>;
}

function send(url: string, opts: { method: string; from: string; headers?: Record<string, string>; body?: string }) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>(
    (resolve, reject) => {
      const req = request(url, { method: opts.method, headers: opts.headers, localAddress: opts.from }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
      });
      req.on('error', reject);
      req.end(opts.body);
    },
  );
}

export async function serveForSignIn(
  app: { fetch: (request: Request) => Response | Promise<Response> },
  appUrl?: string,
): Promise<SignInServer> {
  const port = appUrl ? Number(new URL(appUrl).port) : await freePort();
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => resolve(s as Server));
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    async signIn(token, from = '127.0.0.1', headers = {}) {
      const form = await send(`${url}/login`, { method: 'GET', from, headers });
      const cookie = String(form.headers['set-cookie']?.[0] ?? '').split(';')[0]!;
      const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
      const body = new URLSearchParams({ _csrf: csrf, next: '/runs', token }).toString();
      return send(`${url}/login`, {
        method: 'POST',
        from,
        body,
        headers: { ...headers, cookie, 'content-type': 'application/x-www-form-urlencoded' },
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
