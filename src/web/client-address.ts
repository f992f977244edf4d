import type { Context } from 'hono';
import { clientAddressOf, parseTrustedProxies, type TrustedProxies } from '../domain/trusted-proxies.js';
import type { WebEnv } from './context.js';

const parsed = new Map<string, TrustedProxies>();
/** PROCTOR_TRUSTED_PROXIES, parsed once (loadConfig has refused a malformed one already). */
const trustedProxies = (text: string | undefined): TrustedProxies => {
  let trusted = parsed.get(text ?? '');
  if (!trusted) parsed.set(text ?? '', (trusted = parseTrustedProxies(text)));
  return trusted;
};

/**
 * The address of the client: the other end of the socket, or (behind proxies named in PROCTOR_TRUSTED_PROXIES)
 * the address they forwarded in `X-Forwarded-For`. By default no forwarding header is read: any client can write
 * one, and a throttle keyed on it would be one header away from useless. An in-process request (tests'
 * `app.request`) has no socket.
 */
export function clientAddress(c: Context<WebEnv>): string {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  const peer = env?.incoming?.socket?.remoteAddress;
  if (!peer) return 'in-process';
  return clientAddressOf(
    peer,
    c.req.header('x-forwarded-for'),
    trustedProxies(c.get('deps').config.PROCTOR_TRUSTED_PROXIES),
  );
}
