import type { Context } from 'hono';

/**
 * The address of the client on the other end of the socket. Forwarding headers are not read: any client can
 * write them, and a throttle keyed on them would be one header away from useless. Behind a proxy every client
 * shares the proxy's address, which the per-address limit tolerates (it counts failures only). An in-process
 * request (tests' `app.request`) has no socket.
 */
export function clientAddress(c: Context): string {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress ?? 'in-process';
}
