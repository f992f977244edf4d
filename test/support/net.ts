import { request as httpRequest, type IncomingHttpHeaders, type RequestOptions } from 'node:http';
import type { Server } from 'node:net';

// Picked below the kernel's ephemeral range and reserved across processes: src/ports.ts says why.
export { freePort } from '../../src/ports.js';

export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Listens on a free loopback port chosen by the OS (port 0); resolves with the port once the server accepts
 * connections. Asking for a free port first and listening on it after races with every other process picking ports
 * (a Temporal dev server starting in another test file took one that way: EADDRINUSE).
 */
export async function listenOnFreePort(server: Pick<Server, 'once' | 'listen' | 'address'>): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('the server has no TCP address');
  return address.port;
}

export interface BufferedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * One request through node:http with its whole answer read into a Buffer. For what fetch cannot send: a Host header
 * of the caller's choosing (a tunnel hostname), an absolute-URL target through a proxy, a keep-alive agent of its own.
 */
export function requestBuffered(options: RequestOptions, body?: Buffer): Promise<BufferedResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
